package mcp

import (
	"context"
	"strings"

	"github.com/tmux-mcp/tmux-mcp/ports"
)

// list_hosts, the tool of a server of several hosts (Options.Hosts), and
// the host of what the other tools list there.

// hostTools are the tools of a server of several hosts.
func (s *Server) hostTools() []declaration {
	return []declaration{s.listHosts()}
}

func (s *Server) listHosts() declaration {
	return tool[noArgs, hostListOutput]{
		name:        "list_hosts",
		description: listHostsDescription,
		annotations: readingAnnotations("List hosts"),
		call:        serveNoArgs(func(ctx context.Context) ([]ports.HostInfo, error) { return s.hosts.Hosts(ctx), nil }, fromHosts),
	}
}

const listHostsDescription = "List hosts; accepts no client-supplied executable input. " +
	"Every host this server drives, each asked now: its name (what its pane, window and session ids carry " +
	"before the colon, as web1:%3), how it is reached (its ssh destination), whether it answered, and if not " +
	"why and since when, and how many sessions and panes it has. A host that cannot be reached is left out of " +
	"list_sessions, list_panes and search_panes (their unreachableHosts name it) until it answers again."

type hostListOutput struct {
	Hosts []hostOutput `json:"hosts" jsonschema:"Every host, in the order the server was given them."`
}

// hostOutput is one host as list_hosts reports it.
type hostOutput struct {
	Destination string  `json:"destination" jsonschema:"How the host is reached: its ssh destination; empty for this machine."`
	Error       *string `json:"error" jsonschema:"Why the host was last found unreachable; null while it is reachable."`
	Name        string  `json:"name" jsonschema:"The host's name: what its ids carry before the colon."`
	Panes       int     `json:"panes" jsonschema:"How many panes the host's tmux server has; 0 while it is unreachable."`
	Reachable   bool    `json:"reachable" jsonschema:"The host answered when asked just now."`
	Sessions    int     `json:"sessions" jsonschema:"How many sessions the host's tmux server has; 0 while it is unreachable."`
	Since       *string `json:"since" jsonschema:"Since when the host has been reachable, or unreachable, in RFC 3339; null when it has never been asked."`
}

func fromHosts(hs []ports.HostInfo) hostListOutput {
	out := hostListOutput{Hosts: make([]hostOutput, 0, len(hs))}
	for _, h := range hs {
		out.Hosts = append(out.Hosts, hostOutput{
			Destination: h.Destination,
			Error:       stringOrNull(h.Error),
			Name:        h.Name,
			Panes:       h.Panes,
			Reachable:   h.Reachable,
			Sessions:    h.Sessions,
			Since:       timeOrNull(h.Since),
		})
	}
	return out
}

// unreachableOutput is a host a listing left out.
type unreachableOutput struct {
	Error string `json:"error" jsonschema:"Why the host could not be reached."`
	Name  string `json:"name" jsonschema:"The host's name."`
}

// unreachable names the hosts that the calls so far found unreachable,
// for a listing's result: nil for a server of one host, which leaves the
// field out; never nil for one of several.
func (s *Server) unreachable() []unreachableOutput {
	if s.hosts == nil {
		return nil
	}
	out := []unreachableOutput{}
	for _, h := range s.hosts.HostStatus() {
		if !h.Reachable && h.Error != "" {
			out = append(out, unreachableOutput{Error: h.Error, Name: h.Name})
		}
	}
	return out
}

// hostOf is the host an id of a server of several hosts carries (web1
// of web1:%3); "" for an id of a server of one host, which carries none.
func hostOf(id string) string {
	host, _, found := strings.Cut(id, ":")
	if !found {
		return ""
	}
	return host
}
