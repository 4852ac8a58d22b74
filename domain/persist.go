package domain

import "github.com/tmux-mcp/tmux-mcp/domain/frame"

// How a run_shell_command call's command runs (RunRequest.Persist,
// Config.NoAgentEnv):
//
//   - By default in a child shell of the pane's shell, so that what it
//     changes (directory, variables, options, exit) stays there, with the
//     agent's environment (frame.AgentEnvironment): no pager waits for a
//     key, git does not ask on the terminal. Config.NoAgentEnv leaves the
//     child shell's environment as the shell's.
//   - With Persist, in the pane's shell itself: cd, export, source and
//     functions carry over to later calls and to the person's shell, and
//     the environment is the shell's as it is. Every supported shell
//     family can; the limits (exit ends the shell, return and an
//     interrupt give up the frame's end, traps the command sets) are
//     package frame's ("Persist and the agent's environment"). A pane
//     whose shell is not a supported one is refused by policy.CheckRun,
//     as for any framed command, before anything is typed.

// frameOptions are the frame options of req's command.
func (s *Service) frameOptions(req RunRequest) frame.Options {
	return frame.Options{Persist: req.Persist, AgentEnv: !req.Persist && !s.cfg.NoAgentEnv}
}
