// Package tmux is the tmux implementation of ports.Terminal, for tmux 3.2
// or newer. It runs the tmux client with argv only, never through a shell
// (with a remote host, through the one shell ssh cannot avoid, every
// argument quoted: see Remote hosts). It imports the standard library,
// ports, and the adapters' shared internals (adapters/internal: outbuf
// for the streams, proc and tty for a pane's processes and terminal here,
// screencap, scripts), and no other adapter.
//
// # Parts
//
// Terminal embeds its core (terminal: the way to tmux and the panes'
// output) and one type per role over it: manager (ports.Manager), leaser
// (ports.Leaser, DescribingLeaser) and shellSupport (ports.ScriptStore,
// JobControl, Signaler, ProcessChecker, ProcessWatcher). A command list is a cmdList, each command its own argv,
// and exec is the one place that picks its route (a control client or a
// process; see command.go). Control clients (control.go) see a
// clientConfig and tell a clientSink, the core, what they read. The
// panes' output records (output.go) live under a lock of their own, so
// that recording %output lines waits for no command. Every goroutine
// runs under the Terminal's lifetime and is counted in the WaitGroup
// that Close waits on. ARCHITECTURE.md tells who owns which goroutine
// and lock.
//
// # Calls
//
// Every method runs one tmux command list (SendText one per chunk of
// text), whose commands are chained so that a check and an action run
// together in one pass of tmux's command queue:
//
//   - Pane: list-panes of the pane's window, list-clients and list-windows
//     (see Pane for how watchers are told).
//   - SendText: send-keys -l in chunks of at most 8 KiB (tmux refuses
//     commands over about 16 KiB), cut at UTF-8 boundaries. A line feed is
//     typed as C-j, which readline shells and shells reading a canonical
//     tty both take as the end of a line.
//   - SendKeys: send-keys with names checked beforehand against tmux's key
//     vocabulary, because tmux types an unknown name as text.
//   - Paste: set-buffer in chunks of at most 8 KiB (a text of up to
//     16 KiB without NUL), or else load-buffer from standard input, into a
//     buffer private to the call, then paste-buffer -d -p, guarded by
//     if-shell so that it never targets a dead pane (which crashes tmux
//     3.3a). Line feeds become carriage returns, as when text is pasted
//     into a terminal emulator.
//   - Capture: capture-pane with the port's row numbers, which are tmux's
//     (see below for where its rows go).
//   - The lease (lease.go) and the listings of the Manager (manage.go).
//
// tmux takes any argument ending in ";" as the end of a command, so such
// arguments are passed to a process as "...\;", which tmux turns back
// into "...;" (cmdList.argv).
//
// # How a command list reaches tmux
//
// A command list goes to tmux in one of two ways (command.go):
//
//   - As one line written to a control-mode client that is already
//     attached: about 0.05 ms. The arguments are quoted so that tmux reads
//     back exactly the argv the subprocess path would give it, whatever
//     bytes they hold (line feeds and bytes that are not UTF-8 included).
//   - As a tmux process run with the arguments: about 2 ms, most of it
//     starting the process. Outside a UTF-8 locale tmux runs with -u, so
//     that its output is not made ASCII.
//
// Pane, SendText, SendKeys, Capture, Paste of a short text, the lease and
// the Manager's listings use a control client when one can be had: the one
// recording the pane's output, else any the Terminal has attached; with
// none attached, a call about a pane attaches one to the session holding
// the pane (as OpenOutput would, with the same flags and under the same
// care; see Output streams), which then stays for Options.IdleTimeout
// after its last command or stream. A command whose client goes away
// before tmux answers is run again as a process, unless it types into a
// pane (tmux may have run it already; the error then says so). Paste of a
// long text or of one holding a NUL (its text comes on standard input)
// and the Manager's commands that create, change or remove sessions,
// windows and panes always run as processes: the latter are not frequent,
// several make tmux notify every control client (see control.go), and run
// from an attached client some would take that client's session for their
// default.
//
// # What may travel over a control client
//
// tmux frames a control client's replies with "%begin T N F" and
// "%end T N F" (or "%error T N F") lines and writes a command's output
// between them as it is. The reader ends a reply at the first line equal
// to its "%end" line, and T (the time in seconds) and N (a counter from a
// few hundred up) can be guessed. A command whose output holds text that
// a pane's program controls could end its reply early with a forged "%end"
// line, and what followed would be read as tmux's own lines: "%output"
// lines putting bytes into another pane's stream (a forged end of a
// framed command and its exit status), or a forged reply to the next
// command (a Pane without watchers, a lease that looks free). So a command
// goes over a control client only when no line it prints can start with
// "%" (controlSafe): the listings' formats start each line with a tag and
// pass every field that a program or another process can set (a command's
// name, a working directory, a title, a session or window name, the
// lease's owner) through a substitution that turns control characters,
// line feeds included, into "?"; send-keys, set-option, if-shell -F and
// delete-buffer print nothing.
//
// capture-pane -p prints the pane's text as it is, and none of its flags
// (-e, -C, -J, -N) escapes a line that starts with "%"; no format reads a
// pane's text or a buffer in full so that it could be cleaned. So a
// capture travels over a control client only as a printing part
// (commandPart): capture-pane -p alone on its line, followed by a line
// that prints a marker of 128 random bits, made for that capture and
// written only to the client's standard input. The reader does not end
// the capture's reply at a line that looks like its end: it keeps every
// line until the marker's line, whose block comes after the capture's,
// and takes the last "%end" (or "%error") of the capture's block before
// that block's "%begin" for the real end (see controlParser). A pane's
// program cannot print the marker, so whatever it prints is rows of the
// reply, and only tmux's own lines after the real end are read as tmux's.
// (Until this, a capture went through a paste buffer saved into a file,
// which the control client's process writes: a further exchange between
// tmux and that process on every capture, ≈ 0.25 ms.) Without a control
// client, capture-pane -p runs as a process, whose standard output has no
// framing to forge.
//
// One way around this is the user's own to open: tmux sends what the
// commands of a hook print (set-hook -g after-capture-pane 'capture-pane
// -p …') to the client whose command set it off, in blocks of their own
// (flags 0), which have no marker after them and end at the first line
// that looks like their end. A hook that prints a pane's text can so make
// that text be read as tmux's lines. Nothing the adapter sets prints in a
// hook.
//
// # Output streams
//
// OpenOutput attaches a control-mode client ("tmux -C attach-session -f
// ignore-size") to a session holding the pane, one client per
// session, started on demand and stopped after Options.IdleTimeout without
// open streams or commands. It returns once tmux has answered the client's
// attach-session: tmux may run commands written to a client before that,
// while the client receives no output yet. See output.go for how offsets,
// loss and pane death are handled. Attaching a client is visible to tmux:
// the session counts as attached while it is there, client-attached hooks
// run, and a session with destroy-unattached on is destroyed when the
// client leaves. Clients attach one at a time, and while one attaches the
// Terminal does nothing that tmux reports to every control client
// (detaching another, creating, renaming or killing a session, pane or
// window, or changing a paste buffer, which tmux 3.4 reports): tmux 3.3a
// crashes when such a report reaches a client still attaching (see
// control.go). A capture is not such a command (capture-pane -p makes no
// buffer), and a call that finds no client attached while one attaches
// runs as a process rather than wait for it: attaching, which over ssh
// takes a round trip on a link that may be slow, holds up no capture.
//
// Respawning a pane (Manager.RespawnPane) pauses the pane's output for
// every control client on the server, respawns it and continues it, in
// one command list: tmux crashes when a respawned pane first writes while
// a control client is behind on its old output (see manage.go). A client
// of this Terminal that tmux pauses, by this process or another, counts a
// possible loss in the pane's streams and asks to continue at once.
//
// # Remote hosts
//
// With Options.SSH the tmux server is on another host, and every tmux
// process described above, control clients and one-off commands alike,
// runs there through the system ssh (launch.go is the one place that makes
// them; ssh.go the ssh side). The user's ssh configuration, agent and
// known_hosts apply; BatchMode keeps ssh from ever asking, so an unknown
// host key or a failed login is an error at New, with what to do about it.
// One master connection (ControlMaster, its socket in a 0700 directory of
// this process, removed by Close) carries every client as a session of
// its own, so a call costs no handshake; a master that died is replaced
// by the next call, and a stream that lost it is listened to again.
//
// ssh hands the remote command to the remote login shell as one string:
// the only place where a shell reads anything the adapter sends. So the
// command line is "exec" and every argument in single quotes, each single
// quote in an argument written as quote, backslash, quote, quote; no
// other byte is special inside single quotes, so no client text can
// reach that shell as anything but one literal argument. New first checks
// with a probe that the login shell reads such quoting the POSIX way (sh,
// bash, dash, zsh, ksh do; fish and csh do not, and are refused).
//
// What differs over ssh: TMUX and TMUX_PANE are ignored, since the pane this process runs
// in is not on that host, so no remote pane is Self; tmux always runs
// with -u, the remote locale being unknown; and a lost connection ends
// the streams it fed as broken, not their panes as dead. Without a socket
// setting the server is the remote user's default one. Nothing but tmux,
// the login shell and what POSIX hosts have (/bin/sh, od, stty, uname,
// readlink, and stat as GNU, busybox and toybox have it) is needed on the
// remote host, and
// nothing is written there except through tmux. The lease is judged on
// the tmux server's clock (lease.go), so servers on machines whose clocks
// differ still keep one writer per pane.
//
// A pane's processes and terminal (JobControl) are read there by the
// remote reader (remoteproc.go): one more session on the master runs a
// fixed script (procscript.go) under bash, or /bin/sh where the host has
// no bash, which answers numbered questions on its standard input with
// what /proc and stty say: the stat of the pane's first process and the
// foreground group's children and command line, the pane terminal's
// device (once per pane) and its mode, the newest process id and the
// processes started on the terminal since a mark (remoteleft.go), and
// who of the foreground group sleeps reading the terminal
// (remotereading.go). These are the fields, from the same files, that
// adapters/internal/tty reads locally, judged by the same functions of
// it, and the domain's end confirmation, its detection of a frame the
// shell gave up, of a command awaiting input and of what a command left
// running work over ssh as here. A question is a line each way on the connection and
// no process on the remote host (under bash; under dash, one od); the
// session starts with the first question, serves every caller with their
// questions in flight at once, and ends after Options.IdleTimeout without
// one. Only a verb and numbers are sent, checked before sending and again
// by the script, and the script is fixed text, so no client text reaches
// a remote shell here either. Every wait for an answer ends with the
// caller's context or after Options.CommandTimeout; a reader that did not
// answer in time is ended and the next question starts another, and its
// failures wrap ports.ErrUnavailable or ports.ErrNoAnswer, never
// ports.ErrUnsupported, which the domain would take for good. A host
// without Linux's /proc (macOS, the BSDs) or a pane terminal that is not
// /dev/pts/N answers ports.ErrUnsupported, never a guess: there the
// secret alone guards a command's end, and a frame the shell gave up is
// not seen. The terminal's mode (LineEditing) needs only stty and a
// terminal named /dev/pts/N, and is asked without /proc too (FreeBSD's
// terminals are named so; macOS's, /dev/ttysNNN, are not).
//
// # Errors
//
// A pane tmux cannot find yields an error wrapping ports.ErrPaneNotFound, a
// dead pane one wrapping ports.ErrPaneDead, and an unreachable server or a
// missing or too old tmux one wrapping ports.ErrUnavailable. Failures of
// tmux commands are *CommandError values; failures of ssh itself (the host
// unreachable, its key unknown, the login refused, the connection lost)
// are *SSHError values, which wrap ports.ErrUnavailable.
package tmux
