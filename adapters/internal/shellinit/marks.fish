# tmux-mcp shell integration for fish: prompt marks (OSC 133) that tell a
# terminal where the prompt, the typed command and its output are. It
# prints ESC]133;A BEL where the prompt starts, ESC]133;B BEL where it ends,
# ESC]133;C BEL before a command's output and ESC]133;D;STATUS BEL after
# it. It keeps your prompt and $status, adds no history, starts no
# process, and does nothing when sourced a second time, or in fish 4,
# which prints these marks itself. Put it in
# ~/.config/fish/conf.d/tmux-mcp.fish.
if status is-interactive; and not set -q __tmux_mcp_marks; and test (string split -f1 . -- $FISH_VERSION) -lt 4
    set -g __tmux_mcp_marks 1
    function __tmux_mcp_status --description 'tmux-mcp: return the status given'
        return $argv[1]
    end
    function __tmux_mcp_preexec --on-event fish_preexec
        printf '\e]133;C\a'
    end
    function __tmux_mcp_postexec --on-event fish_postexec
        printf '\e]133;D;%s\a' $status
    end
    # The prompt, between the marks: the user's prompt, kept under
    # another name, runs with the status it would have seen. The prompt
    # is wrapped anew before each prompt whenever something (config.fish,
    # read after conf.d) defined it since.
    function __tmux_mcp_wrap --on-event fish_prompt
        if functions -q __tmux_mcp_user_prompt; and functions fish_prompt | string match -q '*__tmux_mcp_user_prompt*'
            return
        end
        functions -e __tmux_mcp_user_prompt
        functions -q fish_prompt; and functions -c fish_prompt __tmux_mcp_user_prompt
        function fish_prompt
            set -l s $status
            printf '\e]133;A\a'
            if functions -q __tmux_mcp_user_prompt
                __tmux_mcp_status $s
                __tmux_mcp_user_prompt
            end
            printf '\e]133;B\a'
        end
    end
end
