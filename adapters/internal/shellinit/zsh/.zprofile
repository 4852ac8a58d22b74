# tmux-mcp: read in place of your .zprofile (see .zshenv here).
# The user's file is read here, at the top level, never in a function,
# where its typeset would make variables local.
__tmux_mcp_restore
if [[ -r ${ZDOTDIR:-$HOME}/.zprofile ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zprofile"
fi
if [[ -o rcs ]]; then
	__tmux_mcp_keep
else
	__tmux_mcp_done
fi
