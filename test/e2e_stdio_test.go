package test

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The built binary spoken to line by line, as a shell pipe, a person at a
// terminal or a client that stops it would: what comes back for each line,
// and what is still answered when its input ends or it is told to stop.
// These run on the fake backend (-backend fake), whose pane %0 runs a
// scripted shell that knows sleep and printf; they need no tmux.

// lineServer is the binary with its standard streams on pipes.
type lineServer struct {
	t      *testing.T
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *wireLog // what it wrote to standard output
	stderr *lockedBuffer
	exited chan struct{}
	err    error // of Wait, once exited is closed
}

func startLineServer(t *testing.T, args ...string) *lineServer {
	t.Helper()
	bin := serverBinary(t)
	s := &lineServer{t: t, out: newWireLog(), stderr: &lockedBuffer{}, exited: make(chan struct{})}
	s.cmd = exec.Command(bin, args...)
	s.cmd.Env = cleanEnv(os.Environ())
	s.cmd.Stderr = s.stderr
	var err error
	if s.stdin, err = s.cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := s.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		br := bufio.NewReader(stdout)
		for {
			line, err := br.ReadString('\n')
			if line != "" {
				s.out.add(strings.TrimSuffix(line, "\n"))
			}
			if err != nil {
				break
			}
		}
		s.err = s.cmd.Wait()
		close(s.exited)
	}()
	t.Cleanup(func() {
		select {
		case <-s.exited:
		default:
			s.cmd.Process.Kill()
			<-s.exited
		}
		for _, l := range s.out.snapshot() {
			if !isJSONRPC(l.text) {
				t.Errorf("standard output carries a line that is not JSON-RPC 2.0: %q", l.text)
			}
		}
	})
	return s
}

func isJSONRPC(line string) bool {
	var m struct {
		JSONRPC string `json:"jsonrpc"`
	}
	if strings.HasPrefix(line, "[") {
		var batch []json.RawMessage
		return json.Unmarshal([]byte(line), &batch) == nil
	}
	return json.Unmarshal([]byte(line), &m) == nil && m.JSONRPC == "2.0"
}

func (s *lineServer) send(lines ...string) {
	s.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(s.stdin, l+"\n"); err != nil {
			s.t.Fatalf("write %q: %v\nstderr:\n%s", l, err, s.stderr)
		}
	}
}

// rpcReply is a JSON-RPC reply the binary wrote.
type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
	at time.Time
}

// reply waits for the reply with id (as JSON: 1, "a", null); for null, the
// n-th such reply (from 0).
func (s *lineServer) reply(id string, n int) rpcReply {
	s.t.Helper()
	deadline := time.After(20 * time.Second)
	for {
		seen := 0
		for _, line := range s.out.snapshot() {
			var r rpcReply
			if json.Unmarshal([]byte(line.text), &r) != nil || string(r.ID) != id || r.Result == nil && r.Error == nil {
				continue
			}
			if seen++; seen > n {
				r.at = line.at
				return r
			}
		}
		select {
		case <-s.out.changed:
		case <-deadline:
			s.t.Fatalf("no reply with id %s (number %d) within 20s\nstderr:\n%s", id, n, s.stderr)
		}
	}
}

// wait waits for the binary to exit and fails the test unless it exits
// with status 0 within d.
func (s *lineServer) wait(d time.Duration) {
	s.t.Helper()
	select {
	case <-s.exited:
	case <-time.After(d):
		s.t.Fatalf("the binary did not exit within %v\nstderr:\n%s", d, s.stderr)
	}
	if s.err != nil {
		s.t.Errorf("the binary exited with %v; want status 0\nstderr:\n%s", s.err, s.stderr)
	}
}

func rpcInitialize(id int) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"pipe","version":"0"}}}`, id)
}

const rpcInitialized = `{"jsonrpc":"2.0","method":"notifications/initialized"}`

func rpcRun(id int, command string) string {
	return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"run_shell_command","arguments":{"paneId":"%%0","command":%q}}}`, id, command)
}

func rpcPing(id int) string { return fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"ping"}`, id) }

// runReply decodes the structured content of a run_shell_command reply.
func runReply(t *testing.T, r rpcReply) (outcome, output string) {
	t.Helper()
	var res struct {
		IsError           bool `json:"isError"`
		StructuredContent struct {
			Outcome string `json:"outcome"`
			Output  string `json:"output"`
		} `json:"structuredContent"`
	}
	if r.Error != nil || json.Unmarshal(r.Result, &res) != nil || res.IsError {
		t.Fatalf("run_shell_command reply: error %+v, result %s", r.Error, r.Result)
	}
	return res.StructuredContent.Outcome, res.StructuredContent.Output
}

// printf '<initialize>\n<initialized>\n<tools/call>\n' | tmux-mcp: every
// request is answered, in order, and the call that is still running when
// the input ends completes before the binary exits.
func TestBinaryAnswersEveryRequestOfPipedInput(t *testing.T) {
	t.Parallel()
	s := startLineServer(t, "-backend", "fake")
	s.send(rpcInitialize(1), rpcInitialized, rpcRun(2, "sleep 1; printf done"))
	s.stdin.Close()
	if r := s.reply("1", 0); r.Error != nil {
		t.Errorf("initialize: %+v", r.Error)
	}
	if outcome, output := runReply(t, s.reply("2", 0)); outcome != "completed" || output != "done" {
		t.Errorf("run_shell_command: %s %q; want it completed with its output", outcome, output)
	}
	s.wait(15 * time.Second)
	if strings.Contains(s.stderr.String(), "initialized before initialize") {
		t.Errorf("the binary handled initialized before initialize:\n%s", s.stderr)
	}
}

// A line that is not JSON-RPC gets an error reply, and the binary goes on
// serving.
func TestBinaryAnswersALineThatIsNotJSONRPCAndGoesOn(t *testing.T) {
	t.Parallel()
	s := startLineServer(t, "-backend", "fake")
	s.send("hello")
	if r := s.reply("null", 0); r.Error == nil || r.Error.Code != -32700 {
		t.Fatalf("reply to \"hello\": %+v, want a parse error (-32700)", r.Error)
	}
	s.send(`{"method":"ping"}`)
	if r := s.reply("null", 1); r.Error == nil || r.Error.Code != -32600 {
		t.Errorf("reply to JSON that is not JSON-RPC: %+v, want an invalid request error (-32600)", r.Error)
	}
	s.send(rpcInitialize(1), rpcInitialized, rpcPing(2))
	s.reply("1", 0)
	s.reply("2", 0)
	s.stdin.Close()
	s.wait(15 * time.Second)
}

// SIGTERM: the call in flight finishes and is answered before the binary
// exits; it is not cancelled.
func TestBinaryFinishesTheCallInFlightOnSIGTERM(t *testing.T) {
	t.Parallel()
	s := startLineServer(t, "-backend", "fake")
	s.send(rpcInitialize(1), rpcInitialized, rpcRun(2, "sleep 1; printf finished"), rpcPing(3))
	s.reply("1", 0)
	// The ping was read after the call, so the call has been read too.
	s.reply("3", 0)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	if outcome, output := runReply(t, s.reply("2", 0)); outcome != "completed" || output != "finished" {
		t.Errorf("run_shell_command after SIGTERM: %s %q; want it completed", outcome, output)
	}
	s.wait(15 * time.Second)
}

// A second SIGTERM cancels the call in flight at once; its reply, outcome
// cancelled, is still written.
func TestBinaryCancelsTheCallInFlightOnASecondSIGTERM(t *testing.T) {
	t.Parallel()
	s := startLineServer(t, "-backend", "fake")
	s.send(rpcInitialize(1), rpcInitialized, rpcRun(2, "sleep 60"), rpcPing(3))
	s.reply("1", 0)
	s.reply("3", 0)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	eventually(t, 10*time.Second, "the log to say the server drains", func() bool {
		return strings.Contains(s.stderr.String(), "finishing the calls in flight")
	})
	signalled := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	r := s.reply("2", 0)
	if outcome, _ := runReply(t, r); outcome != "cancelled" {
		t.Errorf("run_shell_command after two SIGTERMs: %s, want cancelled", outcome)
	}
	if took := r.at.Sub(signalled); took > 5*time.Second {
		t.Errorf("the cancelled call was answered %v after the second SIGTERM; want at once", took)
	}
	s.wait(15 * time.Second)
}

// A stop signal that comes while the binary is still starting, before a
// client has said a word, stops it in order all the same: it exits with
// status 0, not killed by the signal, and takes its private tmux server
// and the server's socket file with it.
func TestBinaryStoppedWhileStartingRemovesItsPrivateServer(t *testing.T) {
	t.Parallel()
	bin := needTmux(t)
	s := startLineServer(t)
	named := regexp.MustCompile(`"socket": "([^"]+)"`)
	var socket string
	// As soon as the private server is named, which the binary logs while
	// it is being built, before it serves.
	deadline := time.Now().Add(10 * time.Second)
	for socket == "" && time.Now().Before(deadline) {
		if m := named.FindStringSubmatch(s.stderr.String()); m != nil {
			socket = m[1]
			break
		}
		time.Sleep(200 * time.Microsecond)
	}
	if socket == "" {
		t.Fatalf("no log line names the private server\nstderr:\n%s", s.stderr)
	}
	tmuxOn := privateTmux(t, bin, socket)
	if err := s.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	s.wait(15 * time.Second)
	if out, err := tmuxOn("list-sessions"); err == nil {
		t.Errorf("the private server %s still runs after the binary exited: %s", socket, out)
	}
	if _, err := os.Stat(socketFile(socket)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("socket file %s left behind (stat: %v)", socketFile(socket), err)
	}
}
