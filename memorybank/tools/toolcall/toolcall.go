package toolcall

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// ErrInvalidTool: New was given a tool that a function-calling API would
// refuse. The error is a *DeclError naming the tool and the reason.
var ErrInvalidTool = errors.New("toolcall: invalid tool")

// DeclError is a tool New refuses.
type DeclError struct {
	Tool   string // the tool's name, as given
	Reason string // what is wrong with it
}

func (e *DeclError) Error() string {
	return fmt.Sprintf("toolcall: tool %q: %s", e.Tool, e.Reason)
}

// Unwrap returns ErrInvalidTool.
func (e *DeclError) Unwrap() error { return ErrInvalidTool }

// Function is a tool as a function-calling API declares it.
type Function struct {
	Name        string
	Description string
	// Parameters is the tool's input schema as a JSON object, a new map
	// on every call of Functions, so a host may change it.
	Parameters map[string]any
}

// Set is a fixed set of tools, by name. It is safe for concurrent use.
type Set struct {
	env    tools.Env
	tools  []tools.Tool
	params [][]byte // the input schema of tools[i], as JSON
	byName map[string]int
}

// New returns the Set of ts, in their order, answering every call with
// env (who calls, the branch an omitted one is, how a plan is confirmed):
// a function-calling agent acts for one person on one project. It returns
// a *DeclError (ErrInvalidTool) for a tool whose name or schema a
// function-calling API would refuse, or whose name was already given, or
// which has no Handle.
func New(ts []tools.Tool, env tools.Env) (*Set, error) {
	s := &Set{env: env, tools: make([]tools.Tool, len(ts)), params: make([][]byte, len(ts)), byName: make(map[string]int, len(ts))}
	for i, t := range ts {
		if reason := badName(t.Name); reason != "" {
			return nil, &DeclError{Tool: t.Name, Reason: reason}
		}
		if _, dup := s.byName[t.Name]; dup {
			return nil, &DeclError{Tool: t.Name, Reason: "given twice; every tool needs its own name"}
		}
		if t.Handle == nil {
			return nil, &DeclError{Tool: t.Name, Reason: "has no Handle"}
		}
		params, reason := parameters(t)
		if reason != "" {
			return nil, &DeclError{Tool: t.Name, Reason: reason}
		}
		s.tools[i], s.params[i], s.byName[t.Name] = t, params, i
	}
	return s, nil
}

// badName says what is wrong with a tool name, or "" when nothing is: the
// rule of OpenAI's functions and Anthropic's tools, ^[a-zA-Z0-9_-]{1,64}$.
func badName(name string) string {
	if name == "" || len(name) > 64 {
		return fmt.Sprintf("the name must be 1 to 64 characters, not %d", len(name))
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Sprintf("the name holds %q at byte %d; only letters, digits, _ and - are allowed", r, i)
		}
	}
	return ""
}

// parameters returns the input schema of t as JSON, or why an API would
// refuse it as a function's parameters.
func parameters(t tools.Tool) ([]byte, string) {
	if t.InputSchema == nil {
		return nil, "has no input schema; function parameters must be a JSON Schema of type \"object\""
	}
	b, err := json.Marshal(t.InputSchema)
	if err != nil {
		return nil, "its input schema does not marshal: " + err.Error()
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, "its input schema is not a JSON object"
	}
	if m["type"] != "object" {
		return nil, fmt.Sprintf("its input schema has type %v; function parameters must be of type \"object\"", m["type"])
	}
	for _, k := range []string{"anyOf", "oneOf", "allOf", "not", "enum"} {
		if _, ok := m[k]; ok {
			return nil, fmt.Sprintf("its input schema has %s at the top level, which function-calling APIs refuse", k)
		}
	}
	if p, ok := m["properties"]; ok {
		if _, isObj := p.(map[string]any); !isObj {
			return nil, "its input schema's properties is not an object"
		}
	}
	return b, ""
}

// Tools returns the tools of the Set, in order.
func (s *Set) Tools() []tools.Tool { return append([]tools.Tool(nil), s.tools...) }

// Functions returns the tools as functions, in order.
func (s *Set) Functions() []Function {
	fs := make([]Function, len(s.tools))
	for i, t := range s.tools {
		var m map[string]any
		_ = json.Unmarshal(s.params[i], &m) // checked by New
		fs[i] = Function{Name: t.Name, Description: t.Description, Parameters: m}
	}
	return fs
}

// Result is the answer to one call.
type Result struct {
	// Content is the text to send back as the call's result: the tool's
	// result as JSON, or, when IsError, the *tools.Error as JSON.
	Content string
	// IsError marks a failed call (Anthropic's is_error; OpenAI has no
	// such flag, the content says it).
	IsError bool
	// Err is the failure, nil when the call succeeded.
	Err *tools.Error
}

// Call runs the tool named name with the arguments the model sent (a JSON
// object; empty means none) and returns its answer. It never fails: a
// failure is a Result with IsError. ctx is passed to the tool, whose
// failure on cancellation is INTERNAL; a host stops its loop on ctx.Err().
func (s *Set) Call(ctx context.Context, name string, args []byte) Result {
	i, ok := s.byName[name]
	if !ok {
		names := make([]string, len(s.tools))
		for i, t := range s.tools {
			names[i] = t.Name
		}
		return failed(&tools.Error{Code: tools.CodeInvalidArgument, Err: tools.ErrUnknownTool,
			Message: fmt.Sprintf("no tool %q; the tools are %s", name, strings.Join(names, ", "))})
	}
	res, err := s.tools[i].Handle(ctx, s.env, json.RawMessage(args))
	if err != nil {
		return failed(tools.AsError(err))
	}
	b, err := json.Marshal(res)
	if err != nil {
		return failed(&tools.Error{Code: tools.CodeInternal, Err: err,
			Message: fmt.Sprintf("%s: its result does not marshal as JSON: %v", name, err)})
	}
	return Result{Content: string(b)}
}

func failed(te *tools.Error) Result {
	b, err := json.Marshal(te)
	if err != nil {
		// Details hold a value JSON cannot hold: answer without them.
		b, _ = json.Marshal(&tools.Error{Code: te.Code, Message: te.Message})
	}
	return Result{Content: string(b), IsError: true, Err: te}
}
