# tmux-mcp: read in place of your .zlogin (see .zshenv here).
# The user's file is read here, at the top level, never in a function,
# where its typeset would make variables local.
__tmux_mcp_restore
if [[ -r ${ZDOTDIR:-$HOME}/.zlogin ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zlogin"
fi
__tmux_mcp_done
