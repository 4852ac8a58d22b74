// Package mcp is the MCP transport: it serves the tools of
// CONTRACT.md (run_shell_command, paste_text, capture_pane, capture_since,
// wait_for_text, send_keys) and the inspect and lifecycle tools
// (list_sessions, list_windows, list_panes, search_panes, get_pane_info,
// display, get_server_info, create_session, create_window, split_window,
// select_pane, select_window, resize_pane, resize_window, rename_session,
// rename_window, clear_pane_scrollback, respawn_pane, kill_pane,
// kill_window, kill_session) over the github.com/modelcontextprotocol/go-sdk
// server, on any transport the SDK offers (stdio, streamable HTTP,
// in-memory for tests).
//
// The package owns the protocol face of the tools and nothing else: each
// tool's declaration (see tool), whose argument and result types give its
// exact input and output JSON schemas (those of the contract's reference
// pages for the three tools that have one, in the same style for the
// others; testdata/schemas holds them as golden copies), the tool
// descriptions and annotations, the safety tier that decides from the
// annotations which tools are offered (see Tier), the relay of a waiting
// call's progress to the client, argument validation (the forms of the
// ids included, which the domain takes as opaque), the conversion of
// domain results to structured content plus the same JSON as text, the
// one mapping from errors to tool errors (see toolError), and the audit
// entry of each call. What a call does is the business of the Tools and
// ManageTools it is given, normally a *domain.Service and a
// *lifecycle.Service.
//
// The package's name is its folder's. Files that also use the SDK's
// package of the same name, here and in its importers, import that one as
// sdk.
package mcp
