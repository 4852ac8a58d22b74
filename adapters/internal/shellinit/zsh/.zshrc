# tmux-mcp: read in place of your .zshrc (see .zshenv here): it reads
# yours, then adds the prompt marks, and keeps lines typed with a space
# first out of the history (HIST_IGNORE_SPACE), as tmux-mcp types its
# commands.
# The user's file is read here, at the top level, never in a function,
# where its typeset would make variables local.
__tmux_mcp_restore
if [[ -r ${ZDOTDIR:-$HOME}/.zshrc ]]; then
	builtin source -- "${ZDOTDIR:-$HOME}/.zshrc"
fi
builtin source -- "$__tmux_mcp_zdotdir/../marks.zsh"
setopt hist_ignore_space
if [[ -o login && -o rcs ]]; then
	__tmux_mcp_keep
else
	__tmux_mcp_done
fi
