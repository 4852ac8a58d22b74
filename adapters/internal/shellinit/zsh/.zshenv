# tmux-mcp: a zsh that tmux-mcp started in a pane it made reads this in
# place of your .zshenv, because tmux-mcp pointed ZDOTDIR here: it puts
# your ZDOTDIR back and reads your .zshenv, and keeps ZDOTDIR here only
# while zsh reads its start-up files, so that the files of this directory
# can read yours and then add the prompt marks (marks.zsh).
typeset -g __tmux_mcp_zdotdir=$ZDOTDIR __tmux_mcp_user_zdotdir= __tmux_mcp_user_set=
if (( ${+__TMUX_MCP_ZDOTDIR} )); then
	__tmux_mcp_user_zdotdir=$__TMUX_MCP_ZDOTDIR __tmux_mcp_user_set=1
fi
unset __TMUX_MCP_ZDOTDIR
# Puts the user's ZDOTDIR back.
__tmux_mcp_restore() {
	if [[ -n $__tmux_mcp_user_set ]]; then
		ZDOTDIR=$__tmux_mcp_user_zdotdir
	else
		unset ZDOTDIR
	fi
}
# Remembers the user's ZDOTDIR (their file may have set it) and points
# ZDOTDIR here again, for zsh's next start-up file.
__tmux_mcp_keep() {
	if (( ${+ZDOTDIR} )); then
		__tmux_mcp_user_zdotdir=$ZDOTDIR __tmux_mcp_user_set=1
	else
		__tmux_mcp_user_zdotdir= __tmux_mcp_user_set=
	fi
	ZDOTDIR=$__tmux_mcp_zdotdir
}
# Ends: the user's ZDOTDIR, and nothing of these files, stays.
__tmux_mcp_done() {
	__tmux_mcp_restore
	unset __tmux_mcp_zdotdir __tmux_mcp_user_zdotdir __tmux_mcp_user_set
	unfunction __tmux_mcp_restore __tmux_mcp_keep __tmux_mcp_done
}
# The user's file is read here, at the top level, never in a function,
# where its typeset would make variables local.
__tmux_mcp_restore
if [[ -r ${ZDOTDIR:-$HOME}/.zshenv ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zshenv"
fi
if [[ -o rcs ]] && [[ -o interactive || -o login ]]; then
	__tmux_mcp_keep
else
	__tmux_mcp_done
fi
