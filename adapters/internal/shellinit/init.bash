# tmux-mcp: a bash that tmux-mcp started in a pane it made reads this in
# place of ~/.bashrc (bash --init-file). tmux starts its panes' shells as
# login shells, so this reads what a login bash reads, /etc/profile and
# the first of ~/.bash_profile, ~/.bash_login and ~/.profile, and then
# adds the prompt marks (marks.bash, next to this file). Your files are
# read at the top level, as bash would read them.
__tmux_mcp_dir=${BASH_SOURCE[0]%/*}
if [[ -r /etc/profile ]]; then
	. /etc/profile
fi
if [[ -r $HOME/.bash_profile ]]; then
	. "$HOME/.bash_profile"
elif [[ -r $HOME/.bash_login ]]; then
	. "$HOME/.bash_login"
elif [[ -r $HOME/.profile ]]; then
	. "$HOME/.profile"
fi
. "$__tmux_mcp_dir/marks.bash"
unset __tmux_mcp_dir
