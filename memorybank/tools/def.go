package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// Every agent tool of the repository is declared the same way, by Declare:
// its argument type (field names from the json tags, descriptions from the
// jsonschema tags, required unless omitempty), its result type and its
// Effect. The input and output schemas are derived from those types with
// jsonschema-go, and the arguments of a call are decoded into the argument
// type in one pass, checked against the same derived schema: there is no
// second description of a tool to drift from the first. The bank's tools
// are declared here, the memories', skill graphs', plans' and
// consolidation's in their own packages (memories/memtools,
// skillgraph/graphtools, memorybank/plan/plantools,
// consolidate/consolidatetools), all with Declare.

// Env is what a host knows about one call beyond its arguments: who makes
// it and how to supply what the model may leave out. It is passed to every
// call explicitly, never carried in the context. The zero Env works: no
// actor is recorded, an omitted branch stays omitted (the call then fails
// as without it), and a write plan is confirmed in two calls.
type Env struct {
	// Actor is recorded as the actor of every change the call makes, so
	// a document's history says who changed it: an MCP client's name, a
	// token's name. An actor the Bank refuses (memorybank.ValidateActor:
	// control characters, not UTF-8, over memorybank.MaxActorBytes) makes
	// the writes fail with INVALID_ARGUMENT; check it where it comes in.
	Actor string
	// Branch supplies the branch of a call that needs one and omitted it
	// (the MCP server asks the client's git root).
	Branch BranchResolver
	// Confirm asks the user to confirm a write plan (the MCP server shows
	// a dialog through elicitation). nil: the model shows the text and
	// calls again with confirmed true.
	Confirm Confirmer
}

// BranchResolver supplies the branch of a call that needs one and omitted
// it: the branch, "" for none (the call then fails as without it), or an
// error that fails the call as it is (a host may return its own error
// type, which the call's error wraps).
type BranchResolver func(ctx context.Context) (string, error)

// Confirmer shows text to the user and says whether they accepted it.
// confirmed is the call's confirmed argument, which the model wrote: a
// Confirmer that can ask the user itself ignores it.
type Confirmer func(ctx context.Context, text string, confirmed bool) (Confirmation, error)

// Confirmation is what a Confirmer learned.
type Confirmation struct {
	Confirmed bool
	// Action is the user's answer through a dialog (accept, decline or
	// cancel), "" when no dialog was shown.
	Action string
}

// AskUser asks the user to confirm text through e.Confirm; without one,
// the call's confirmed argument is the answer (the two-call confirmation).
func (e Env) AskUser(ctx context.Context, text string, confirmed bool) (Confirmation, error) {
	if e.Confirm == nil {
		return Confirmation{Confirmed: confirmed}, nil
	}
	return e.Confirm(ctx, text, confirmed)
}

// Branched is an argument type with a branch argument that a host's
// BranchResolver may supply when the call needs one and omitted it.
type Branched interface {
	// BranchRef returns the branch argument to fill.
	BranchRef() *string
	// NeedsBranch reports whether the call needs a branch.
	NeedsBranch() bool
}

// Decl is a tool declared over what it works on, a D (a *memorybank.Bank,
// a *memories.Manager): its schemas and decoder are derived on first use,
// once per process, not when the package is initialised: a host that
// starts often (an MCP server per agent session) and registers schemas
// saved beforehand never derives the schemas of tools it is not called
// with.
type Decl[D any] struct {
	name, description string
	effect            Effect
	in, out           reflect.Type
	branch            bool // the argument type is Branched
	derive            func() *derived[D]
}

type derived[D any] struct {
	inSchema, outSchema *jsonschema.Schema
	handle              func(ctx context.Context, dep D, env Env, args json.RawMessage) (any, error)
}

// Name is the tool's name.
func (d Decl[D]) Name() string { return d.name }

// Declare declares a tool over a D: run gets the arguments decoded and
// checked, with defaults applied and an omitted branch supplied by the
// Env's BranchResolver when In is Branched. adjust, when set, adds what Go
// types cannot say (enums, bounds, defaults: see SetEnum and friends);
// lenient, when set, rewrites the members a model wrote loosely first. It
// panics on an undeclared Effect.
func Declare[D, In, Out any](name, description string, effect Effect, adjust func(*jsonschema.Schema), lenient func(map[string]json.RawMessage),
	run func(ctx context.Context, dep D, env Env, in *In) (Out, error)) Decl[D] {
	effect.Annotations() // panics on an undeclared effect
	_, branch := any(new(In)).(Branched)
	return Decl[D]{name: name, description: description, effect: effect, branch: branch,
		in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		derive: sync.OnceValue(func() *derived[D] {
			a := DeriveArgs[In](name, adjust)
			return &derived[D]{inSchema: a.Schema, outSchema: OutputSchema[Out](name),
				handle: func(ctx context.Context, dep D, env Env, args json.RawMessage) (any, error) {
					in, err := a.Decode(name, args, lenient, func(in *In) error { return fillBranch(ctx, env, in) })
					if err != nil {
						return nil, err
					}
					return run(ctx, dep, env, in)
				}}
		})}
}

// Bind binds the declarations to dep, in their order.
func Bind[D any](dep D, decls ...Decl[D]) []Def {
	defs := make([]Def, len(decls))
	for i, d := range decls {
		defs[i] = d.Bind(dep)
	}
	return defs
}

// Bind binds the tool to dep.
func (d Decl[D]) Bind(dep D) Def {
	return Def{Name: d.name,
		Handle: func(ctx context.Context, env Env, args json.RawMessage) (any, error) {
			res, err := d.derive().handle(ctx, dep, env, args)
			if err != nil {
				return nil, AsError(err)
			}
			return res, nil
		},
		tool: func() Tool {
			dv := d.derive()
			return Tool{Name: d.name, Description: d.description, InputSchema: dv.inSchema.CloneSchemas(),
				OutputSchema: dv.outSchema.CloneSchemas(), Annotations: d.effect.Annotations(), InputType: d.in, OutputType: d.out,
				branch: d.branch}
		}}
}

// Def is one declared tool bound to what it works on: its name and how it
// runs, for a host that registers schemas saved beforehand (as the MCP
// server does, to start fast); Tool derives the rest.
type Def struct {
	Name string
	// Handle is Tool.Handle, without deriving the tool's schemas.
	Handle func(ctx context.Context, env Env, args json.RawMessage) (any, error)
	tool   func() Tool
}

// Tool returns the tool with its schemas, derived once per process; the
// schemas are new copies the caller may modify.
func (d Def) Tool() Tool {
	t := d.tool()
	t.Handle = d.Handle
	return t
}

// Option configures the tools Tools returns.
type Option func(*options)

type options struct{ branchNote string }

// BranchNote appends text to the description of every tool with a branch
// argument a BranchResolver may supply, and of that argument: for a host
// that supplies an omitted branch and says how.
func BranchNote(text string) Option { return func(o *options) { o.branchNote = text } }

// Tools returns the tools of defs, in order, each with its schemas.
func Tools(defs []Def, opts ...Option) []Tool {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	out := make([]Tool, len(defs))
	for i, d := range defs {
		t := d.Tool()
		if t.branch && o.branchNote != "" {
			t.Description += o.branchNote
			if p := t.InputSchema.Properties["branch"]; p != nil {
				p.Description += o.branchNote
			}
		}
		out[i] = t
	}
	return out
}

// Lookup returns the Def named name, or an INVALID_ARGUMENT *Error
// (ErrUnknownTool) listing the names of defs.
func Lookup(defs []Def, name string) (Def, error) {
	names := make([]string, len(defs))
	for i, d := range defs {
		if d.Name == name {
			return d, nil
		}
		names[i] = d.Name
	}
	return Def{}, &Error{Code: CodeInvalidArgument, Err: ErrUnknownTool,
		Message: fmt.Sprintf("no tool %q; the tools are %s", name, strings.Join(names, ", "))}
}

// branchWanted is an argument type whose call takes a branch without
// needing one (search_documents_by_tags with scope "all": the global bank
// and, given a branch, the branch's): the host's branch is filled in when
// it has one, as for a call that needs it.
type branchWanted interface{ wantsBranch() bool }

func fillBranch(ctx context.Context, env Env, in any) error {
	ba, ok := in.(Branched)
	if !ok || env.Branch == nil || *ba.BranchRef() != "" {
		return nil
	}
	if bw, wants := in.(branchWanted); !ba.NeedsBranch() && !(wants && bw.wantsBranch()) {
		return nil
	}
	branch, err := env.Branch(ctx)
	if err != nil {
		return err
	}
	*ba.BranchRef() = branch
	return nil
}

// NonNil returns s, or an empty slice for nil: a result's list is [],
// never null.
func NonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// Errorf returns an *Error of code whose message is formatted, wrapping
// err (nil when the tool layer found the problem itself).
func Errorf(code Code, err error, details map[string]any, format string, a ...any) *Error {
	return &Error{Code: code, Err: err, Details: details, Message: fmt.Sprintf(format, a...)}
}

// Cancelled is the error of a call whose request was cancelled before it
// changed anything.
func Cancelled(err error) *Error {
	return &Error{Code: CodeInternal, Err: err, Message: "the request was cancelled before it ran; nothing was written"}
}
