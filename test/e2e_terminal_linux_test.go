package test

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/tmux-mcp/tmux-mcp/test/tmuxtest"
)

// make run, as a person at a terminal meets it: the binary with stdin a
// terminal and no socket named says on stderr what it is and how to watch
// its private tmux session, answers a stray line with an error instead of
// dying, serves a client's lines, and ends at Ctrl-D, removing its server.
func TestBinaryAtATerminalSaysWhatItIsAndSurvivesAStrayLine(t *testing.T) {
	t.Parallel()
	tmuxBin := needTmux(t)
	bin := serverBinary(t)
	master, slave := tmuxtest.OpenPTY(t)
	defer master.Close()

	cmd := exec.Command(bin)
	cmd.Env = cleanEnv(os.Environ())
	cmd.Stdin = slave
	stderr := &lockedBuffer{}
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	slave.Close()
	go io.Copy(io.Discard, master) // the terminal's echo of what is typed
	out := newWireLog()
	exited := make(chan error, 1)
	go func() {
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				out.add(strings.TrimSuffix(line, "\n"))
			}
			if err != nil {
				break
			}
		}
		exited <- cmd.Wait()
	}()
	var socket string
	t.Cleanup(func() {
		cmd.Process.Kill()
		if socket != "" {
			exec.Command(tmuxBin, "-L", socket, "kill-server").Run()
			os.Remove(socketFile(socket))
		}
	})

	eventually(t, 20*time.Second, "the note on stderr", func() bool { return strings.Contains(stderr.String(), "Stop it:") })
	note := stderr.String()
	for _, want := range []string{"MCP server", `"Connect a client" in README.md`, "Ctrl-D", "Ctrl-C"} {
		if !strings.Contains(note, want) {
			t.Errorf("the note lacks %q:\n%s", want, note)
		}
	}
	m := regexp.MustCompile(`Watch them from another terminal: tmux -L (\S+) attach -t (\S+)\n`).FindStringSubmatch(note)
	if m == nil {
		t.Fatalf("the note names no tmux attach command:\n%s", note)
	}
	socket = m[1]
	has := exec.Command(tmuxBin, "-L", socket, "has-session", "-t", m[2])
	has.Env = cleanEnv(os.Environ())
	if b, err := has.CombinedOutput(); err != nil {
		t.Errorf("the attach command's session does not exist: tmux -L %s has-session -t %s: %v: %s", socket, m[2], err, b)
	}

	io.WriteString(master, "hello\n")
	out.await(t, 10*time.Second, "a parse error for the stray line", func(text string) bool {
		return strings.Contains(text, `"id":null`) && strings.Contains(text, `"code":-32700`)
	})
	io.WriteString(master, rpcInitialize(1)+"\n")
	out.await(t, 10*time.Second, "the initialize reply", func(text string) bool {
		return strings.HasPrefix(text, `{"jsonrpc":"2.0","id":1,"result":`)
	})
	io.WriteString(master, "\x04") // Ctrl-D at the start of a line: end of input
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("the binary exited with %v after Ctrl-D; want status 0\nstderr:\n%s", err, stderr)
		}
	case <-time.After(15 * time.Second):
		t.Fatalf("the binary did not exit after Ctrl-D\nstderr:\n%s", stderr)
	}
	for _, l := range out.snapshot() {
		if !isJSONRPC(l.text) {
			t.Errorf("standard output carries a line that is not JSON-RPC: %q", l.text)
		}
	}
	if err := exec.Command(tmuxBin, "-L", socket, "has-session").Run(); err == nil {
		t.Errorf("the private tmux server %s still runs after the binary exited", socket)
	}
}
