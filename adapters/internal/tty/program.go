package tty

import (
	"os"
	"strconv"
	"strings"
)

// What a process runs is read from what the kernel ran for it, not from
// the name it was started under: a process's starter chooses its argv[0]
// freely (`exec -a bash python3` is a Python REPL whose command line says
// "bash", and tmux's pane_current_command says so too), but not the file
// the kernel executed.

// Program names the executable that process pid runs, without its path
// (see ProgramFrom); "" when it cannot be told.
func Program(pid int) string {
	dir := "/proc/" + strconv.Itoa(pid)
	exe, err := os.Readlink(dir + "/exe")
	if err != nil {
		exe = ""
	}
	stat, err := os.ReadFile(dir + "/stat")
	if err != nil {
		stat = nil
	}
	return ProgramFrom(exe, string(stat))
}

// ProgramFrom names the executable a process runs from what /proc says of
// it: exe, the target of its /proc/PID/exe link ("" when it could not be
// read), and stat, the text of its /proc/PID/stat ("" likewise).
//
// The program is the base name of exe, the file the kernel runs for the
// process with every symbolic link resolved: a /bin/sh that links to dash
// is "dash", and a script's program is its interpreter. Where exe cannot
// be read (another user's process) or names a file deleted since (a
// package upgraded under a running shell, a program run from memory),
// the program is the process's name in stat (comm), which the kernel set
// to the base name of the file it executed, cut to 15 bytes: exec -a does
// not change it, though the process itself may. "" when neither tells:
// the process has exited (a zombie's name is no longer what runs), or
// nothing could be read. A reader of another host's /proc (over ssh) can
// call ProgramFrom with the two texts it read there.
func ProgramFrom(exe, stat string) string {
	if exe != "" && !strings.HasSuffix(exe, " (deleted)") {
		if i := strings.LastIndexByte(exe, '/'); i >= 0 {
			exe = exe[i+1:]
		}
		if exe != "" {
			return exe
		}
	}
	open, shut := strings.IndexByte(stat, '('), strings.LastIndexByte(stat, ')')
	if open < 0 || shut < open {
		return ""
	}
	// After ") ": the state, one letter; Z and X have exited.
	state := strings.TrimLeft(stat[shut+1:], " ")
	if state == "" || state[0] == 'Z' || state[0] == 'X' {
		return ""
	}
	return stat[open+1 : shut]
}

// FrontProgram names the executable that the leader of the foreground
// process group runs on the terminal that process pid, on that terminal
// (device dev), has as its controlling terminal: what a pane's terminal
// has in front, read through the pane's first process. "" when it cannot
// be told (pid is not on that terminal, the group's leader has exited, or
// /proc cannot be read).
func FrontProgram(pid int, dev uint64) string {
	st, err := ReadStat(pid)
	if err != nil || st.TTYNr != dev || st.Tpgid <= 0 {
		return ""
	}
	return Program(st.Tpgid)
}
