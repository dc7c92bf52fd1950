package mcpserver

import (
	"strconv"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
)

// clientName is the name the MCP client gave in its handshake (such as
// "claude-code"), recorded as the actor of every change to the bank when
// the request carries no token identity.
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		return actorName(p.ClientInfo.Name)
	}
	return ""
}

// actorName makes a client's name an actor the bank records: as it is when
// the bank accepts it, else its first bytes quoted in Go syntax (control
// characters and invalid UTF-8 escaped), so a client with an odd name can
// still write, and its history still says who it was.
func actorName(name string) string {
	if memorybank.ValidateActor(name) == nil {
		return name
	}
	const keep = 48 // a quoted byte is at most 4 characters: 2 + 4*48 < MaxActorBytes
	if len(name) > keep {
		name = strings.ToValidUTF8(name[:keep], "") + "..."
	}
	return strconv.QuoteToASCII(name)
}
