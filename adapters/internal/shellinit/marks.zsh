# tmux-mcp shell integration for zsh: prompt marks (OSC 133) that tell a
# terminal where the prompt, the typed command and its output are. It
# prints ESC]133;A BEL where the prompt starts, ESC]133;B BEL where it ends,
# ESC]133;C BEL before a command's output and ESC]133;D;STATUS BEL after
# it. It keeps your prompt, your precmd and preexec hooks and $?, adds no
# history, starts no process, and does nothing when sourced a second
# time. Put it last in ~/.zshrc.
if [[ -o interactive && -z ${__tmux_mcp_marks-} ]]; then
	typeset -g __tmux_mcp_marks=1 __tmux_mcp_ran=
	typeset -g __tmux_mcp_A=$'%{\e]133;A\a%}' __tmux_mcp_B=$'%{\e]133;B\a%}'
	# The first precmd hook: ends the command that ran. zsh gives every
	# hook the command's status.
	__tmux_mcp_precmd() {
		local s=$?
		if [[ -n $__tmux_mcp_ran ]]; then
			builtin printf '\e]133;D;%s\a' "$s"
		fi
		__tmux_mcp_ran=
		return s
	}
	# The last precmd hook: marks the prompt, whatever set PS1 since.
	__tmux_mcp_prompt() {
		local s=$?
		PS1=${PS1#"$__tmux_mcp_A"}
		PS1=$__tmux_mcp_A${PS1%"$__tmux_mcp_B"}$__tmux_mcp_B
		return s
	}
	# The last preexec hook: the command's output starts.
	__tmux_mcp_preexec() {
		__tmux_mcp_ran=1
		builtin printf '\e]133;C\a'
	}
	typeset -ga precmd_functions preexec_functions
	precmd_functions=(__tmux_mcp_precmd ${precmd_functions:#__tmux_mcp_*} __tmux_mcp_prompt)
	preexec_functions=(${preexec_functions:#__tmux_mcp_*} __tmux_mcp_preexec)
fi
