# tmux-mcp shell integration for bash: prompt marks (OSC 133) that tell a
# terminal where the prompt, the typed command and its output are. It
# prints ESC]133;A BEL where the prompt starts, ESC]133;B BEL where it ends,
# ESC]133;C BEL before a command's output and ESC]133;D;STATUS BEL after
# it. It keeps your prompt, PROMPT_COMMAND and $?, adds no history, starts
# no process, and does nothing when sourced a second time. Put it last in
# ~/.bashrc. PS0, which marks a command's start, needs bash 4.4; an older
# bash gets the prompt's marks and D alone.
if [[ $- == *i* && -z ${__tmux_mcp_marks-} ]]; then
	__tmux_mcp_marks=1
	__tmux_mcp_ran= __tmux_mcp_shown= __tmux_mcp_ps0= __tmux_mcp_flag=
	# PS0 (bash 4.4) is shown as a command starts: it marks C, and where
	# prompt strings are expanded (promptvars, the default) it also sets
	# the flag that says a command ran. Without the flag, every prompt but
	# the first ends a command.
	if ((BASH_VERSINFO[0] > 4 || BASH_VERSINFO[0] == 4 && BASH_VERSINFO[1] >= 4)); then
		__tmux_mcp_ps0=1
	fi
	# The subscript sets the flag in this shell as PS0 is shown; the
	# element itself is always empty.
	__tmux_mcp_Cflag='${__tmux_mcp_none[__tmux_mcp_ran=1]-}\e]133;C\a'
	__tmux_mcp_C='\e]133;C\a'
	__tmux_mcp_A='\[\e]133;A\a\]'
	__tmux_mcp_B='\[\e]133;B\a\]'
	# Runs first in PROMPT_COMMAND: ends the command that ran, and hands
	# its status on to what follows.
	__tmux_mcp_precmd() {
		local s=$?
		if [[ -n $__tmux_mcp_ran || -z $__tmux_mcp_flag && -n $__tmux_mcp_shown ]]; then
			printf '\e]133;D;%s\a' "$s"
		fi
		__tmux_mcp_ran= __tmux_mcp_shown=1
		return "$s"
	}
	# Runs last in PROMPT_COMMAND: marks the prompt, whatever set PS1
	# since, and hands the status on.
	__tmux_mcp_prompt() {
		local s=$?
		PS1=${PS1#"$__tmux_mcp_A"}
		PS1=$__tmux_mcp_A${PS1%"$__tmux_mcp_B"}$__tmux_mcp_B
		if [[ -n $__tmux_mcp_ps0 ]]; then
			PS0=${PS0-}
			PS0=${PS0%"$__tmux_mcp_Cflag"}
			PS0=${PS0%"$__tmux_mcp_C"}
			if shopt -q promptvars; then
				PS0+=$__tmux_mcp_Cflag __tmux_mcp_flag=1
			else
				PS0+=$__tmux_mcp_C __tmux_mcp_flag=
			fi
		fi
		return "$s"
	}
	if [[ ${BASH_VERSINFO[0]} -gt 5 || ${BASH_VERSINFO[0]} -eq 5 && ${BASH_VERSINFO[1]} -ge 1 ]]; then
		# bash 5.1 runs every element of an array PROMPT_COMMAND: the
		# marks keep elements of their own, which a later
		# PROMPT_COMMAND="x;$PROMPT_COMMAND" leaves in place.
		PROMPT_COMMAND=(__tmux_mcp_precmd "${PROMPT_COMMAND[@]}" __tmux_mcp_prompt)
	else
		PROMPT_COMMAND=$'__tmux_mcp_precmd\n'"${PROMPT_COMMAND-}"$'\n__tmux_mcp_prompt'
	fi
fi
