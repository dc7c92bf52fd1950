package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

// The input schemas of the tools are built here from shared pieces, so the
// two write tools (and the five tools taking a branch) cannot drift apart.
// They are plain draft-07 JSON Schema that every MCP client understands:
// type object, properties with descriptions, required, enums, defaults, and
// additionalProperties false. Conditional requirements (branch when the
// scope is "branch") are stated in the descriptions and checked by the
// Bank, whose errors say exactly what is missing.

type jsonObj = map[string]any

func prop(typ any, description string) jsonObj {
	return jsonObj{"type": typ, "description": description}
}

func withDefault(p jsonObj, v any) jsonObj {
	p["default"] = v
	return p
}

func withEnum(p jsonObj, values ...string) jsonObj {
	p["enum"] = values
	return p
}

func objectSchema(required []string, props jsonObj) jsonObj {
	s := jsonObj{"type": "object", "properties": props, "additionalProperties": false}
	if len(required) > 0 {
		s["required"] = required
	}
	return s
}

// maxSafeInteger bounds integer arguments: the largest integer every JSON
// implementation (JavaScript's included) reads exactly.
const maxSafeInteger = 1<<53 - 1

const languageText = `Language of the rules and of the templates a new branch bank is initialised with: "en", "ja" or "zh". Default: the server's configured language.`

func branchProp(requiredWhen string) jsonObj {
	return jsonObj{
		"type":        "string",
		"minLength":   1,
		"description": `Git branch name, e.g. "main" or "feature/login" (the bank does not detect it; pass the current branch). ` + requiredWhen,
	}
}

func pathProp(example string) jsonObj {
	return jsonObj{
		"type":        "string",
		"minLength":   1,
		"description": `Document path relative to its bank, e.g. ` + example + `. Paths ending in .json hold JSON documents (memory_document_v2); any other path holds text.`,
	}
}

func ifVersionProp(what string) jsonObj {
	return jsonObj{
		"type":    "integer",
		"minimum": 0,
		"maximum": maxSafeInteger,
		"description": `Optional optimistic lock: ` + what + ` only if the document's current metadata.version equals this number ` +
			`(the version you last read); otherwise the call fails with CONFLICT and the current version. 0 or absent: no check.`,
	}
}

func patchesProp() jsonObj {
	return jsonObj{
		"type":     "array",
		"minItems": 1,
		"description": `RFC 6902 JSON Patch operations applied, in order and all or nothing, to the existing document ` +
			`as read_*_memory_bank returns its "content" (the whole envelope {schema, metadata, content}), ` +
			`e.g. [{"op":"add","path":"/content/nextSteps/-","value":"write tests"}]. ` +
			`Mutually exclusive with content. The document must already exist.`,
		"items": jsonObj{
			"type": "object",
			"properties": jsonObj{
				"op":    withEnum(prop("string", "Operation type"), "add", "remove", "replace", "move", "copy", "test"),
				"path":  prop("string", "JSON Pointer path (e.g. /metadata/title)"),
				"value": jsonObj{"description": "Value for add, replace, test operations"},
				"from":  prop("string", "Source path for move, copy operations"),
			},
			"required": []string{"op", "path"},
		},
	}
}

func writeSchema(branch bool) jsonObj {
	props := jsonObj{
		"path": pathProp(`"activeContext.json" or "notes/db.md"`),
		"content": jsonObj{
			"type": []string{"string", "object"},
			"description": `Full new document (overwrites it). For .json paths: the memory_document_v2 envelope ` +
				`{"schema":"memory_document_v2","metadata":{"title":...,"documentType":...,"tags":[...]},"content":{...}} ` +
				`or just the content object (a string holding that JSON is accepted). For other paths: the text. ` +
				`Mutually exclusive with patches.`,
		},
		"patches": patchesProp(),
		"tags": jsonObj{
			"type":        "array",
			"items":       jsonObj{"type": "string", "minLength": 1},
			"description": `Replaces the document's tags (applied after content or patches). Absent: tags come from the content or patches, else stay as stored.`,
		},
		"mode": withDefault(withEnum(prop("string",
			`"upsert" creates or overwrites; "create" fails with CONFLICT if the document exists; "update" fails with NOT_FOUND if it does not.`),
			"upsert", "create", "update"), "upsert"),
		"ifVersion":     ifVersionProp("write"),
		"returnContent": withDefault(prop("boolean", "Also return the stored document (as read_*_memory_bank would)."), false),
	}
	required := []string{"path"}
	if branch {
		props["branch"] = branchProp("Required.")
		required = []string{"branch", "path"}
	}
	return objectSchema(required, props)
}

func readSchema(branch bool) jsonObj {
	props := jsonObj{"path": pathProp(`"activeContext.json"`)}
	required := []string{"path"}
	if branch {
		props["branch"] = branchProp("Required.")
		required = []string{"branch", "path"}
	}
	return objectSchema(required, props)
}

func scopeProp(all bool, defaultScope string) jsonObj {
	if all {
		return withDefault(withEnum(prop("string",
			`"branch": the branch bank only; "global": the global bank only; "all": the global bank and, when branch is given, the branch bank.`),
			"branch", "global", "all"), defaultScope)
	}
	return withEnum(prop("string", `"branch" (the memory bank of one git branch; then branch is required) or "global" (shared by all branches).`),
		"branch", "global")
}

func readContextSchema() jsonObj {
	props := jsonObj{
		"branch":              branchProp("Required when includeBranchMemory is true (the default)."),
		"language":            withEnum(prop("string", languageText), "en", "ja", "zh"),
		"includeRules":        withDefault(prop("boolean", "Whether to include the rules (default: true)."), true),
		"includeBranchMemory": withDefault(prop("boolean", "Whether to include the branch memory bank (default: true)."), true),
		"includeGlobalMemory": withDefault(prop("boolean", "Whether to include the global memory bank (default: true)."), true),
		"maxBytes": jsonObj{
			"type":    "integer",
			"minimum": 0,
			"maximum": maxSafeInteger,
			"description": `Optional budget in bytes for the memory sections, counting the JSON of each included file entry and each listed path: ` +
				`core files are included in order while they fit, then the paths of core files left out, then the paths of the other documents; "truncated" says something was left out. 0 or absent: the server's default (unlimited unless configured).`,
		},
	}
	maps.Copy(props, readContextBudgetProps())
	return objectSchema(nil, props)
}

func readRulesSchema() jsonObj {
	return objectSchema(nil, jsonObj{"language": withEnum(prop("string", languageText), "en", "ja", "zh")})
}

func searchSchema() jsonObj {
	return objectSchema([]string{"tags"}, jsonObj{
		"tags": jsonObj{
			"type":        "array",
			"minItems":    1,
			"items":       jsonObj{"type": "string", "minLength": 1},
			"description": `Tags to look for, e.g. ["core", "auth"].`,
		},
		"match":  withDefault(withEnum(prop("string", `"or": documents with any of the tags; "and": documents with all of them.`), "or", "and"), "or"),
		"scope":  scopeProp(true, "all"),
		"branch": branchProp(`Required when scope is "branch"; with scope "all" it adds that branch's bank to the search.`),
	})
}

func listSchema() jsonObj {
	return objectSchema([]string{"scope"}, jsonObj{
		"scope":  scopeProp(false, ""),
		"branch": branchProp(`Required when scope is "branch".`),
		"prefix": prop("string", `Only documents whose path starts with this, e.g. "notes/". Absent: all.`),
	})
}

func deleteSchema() jsonObj {
	return objectSchema([]string{"scope", "path"}, jsonObj{
		"scope":     scopeProp(false, ""),
		"branch":    branchProp(`Required when scope is "branch".`),
		"path":      pathProp(`"notes/old.md"`),
		"ifVersion": ifVersionProp("delete"),
	})
}

// toolSchema is the compiled form of one tool's input schema.
type toolSchema struct {
	text     json.RawMessage
	schema   *gojsonschema.Schema
	defaults map[string]json.RawMessage // top-level property -> default value
	allowed  []string                   // top-level property names, sorted
	integers []string                   // top-level properties of type integer
}

var toolSchemas = sync.OnceValues(func() (map[string]*toolSchema, error) {
	out := map[string]*toolSchema{}
	for _, spec := range allSpecs() {
		ts, err := compileToolSchema(spec.schema)
		if err != nil {
			return nil, fmt.Errorf("tools: input schema of tool %s: %w", spec.name, err)
		}
		out[spec.name] = ts
	}
	return out, nil
})

func compileToolSchema(s jsonObj) (*toolSchema, error) {
	text, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	compiled, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(text))
	if err != nil {
		return nil, err
	}
	ts := &toolSchema{text: text, schema: compiled, defaults: map[string]json.RawMessage{}}
	props, _ := s["properties"].(jsonObj)
	for name, p := range props {
		ts.allowed = append(ts.allowed, name)
		if p.(jsonObj)["type"] == "integer" {
			ts.integers = append(ts.integers, name)
		}
		if d, ok := p.(jsonObj)["default"]; ok {
			if ts.defaults[name], err = json.Marshal(d); err != nil {
				return nil, err
			}
		}
	}
	slices.Sort(ts.allowed)
	return ts, nil
}

// prepare validates raw arguments against the schema and returns them with
// the defaults of absent properties filled in. Absent arguments (nil, empty
// or null) are an empty object, as MCP clients send for tools without
// required parameters. An argument given twice is refused: JSON decoders
// disagree on which one counts, so the model must say which it meant.
// lenient, when set, rewrites loosely written arguments first.
func (ts *toolSchema) prepare(tool string, args json.RawMessage, lenient func(map[string]json.RawMessage)) (json.RawMessage, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if at, reason := jsontext.Check(args); at >= 0 {
		// Decoding would read it as U+FFFD: a path would name another
		// document, a content would lose the bytes.
		return nil, &Error{Code: CodeInvalidArgument, Details: map[string]any{"byteOffset": at},
			Message: fmt.Sprintf("%s: invalid arguments: %s; the arguments must be UTF-8 text (a string cannot hold such bytes, and reading them as U+FFFD would change it). Nothing was read or written.", tool, reason)}
	}
	obj, dup := members(args)
	if dup != "" {
		ptr := "/" + pointer.Escape(dup)
		return nil, &Error{Code: CodeInvalidArgument,
			Message: fmt.Sprintf("%s: invalid arguments: %s: given twice; give each argument once. Nothing was read or written.", tool, ptr),
			Details: map[string]any{"problems": []memorybank.Problem{{Pointer: ptr, Message: "given twice"}},
				"allowedProperties": slices.Clone(ts.allowed)}}
	}
	changed := false
	if obj != nil && lenient != nil {
		n := len(obj)
		lenient(obj)
		changed = len(obj) != n
	}
	if changed {
		var err error
		if args, err = json.Marshal(obj); err != nil {
			return nil, &Error{Code: CodeInternal, Err: err, Message: fmt.Sprintf("%s: %v", tool, err)}
		}
	}
	res, err := ts.schema.Validate(gojsonschema.NewBytesLoader(args))
	if err != nil {
		return nil, &Error{Code: CodeInvalidArgument, Err: err,
			Message: fmt.Sprintf("%s: the arguments are not valid JSON (%v); send a JSON object with the properties %s",
				tool, err, strings.Join(ts.allowed, ", "))}
	}
	if !res.Valid() {
		return nil, ts.refusal(tool, res.Errors())
	}
	if obj == nil {
		// Valid against a schema of type object, so members parses it.
		return nil, &Error{Code: CodeInvalidArgument,
			Message: fmt.Sprintf("%s: the arguments must be a JSON object", tool)}
	}
	for k, v := range ts.defaults {
		if _, ok := obj[k]; !ok {
			obj[k] = v
			changed = true
		}
	}
	// The schema accepts integral numbers written as 1.0 or 1e3, which Go
	// cannot decode into an int: rewrite them as plain integers.
	for _, k := range ts.integers {
		if v, ok := obj[k]; ok && bytes.ContainsAny(v, ".eE") {
			f, _, err := big.ParseFloat(string(v), 10, 128, big.ToNearestEven)
			if err != nil {
				continue
			}
			if i, acc := f.Int64(); acc == big.Exact {
				obj[k] = json.RawMessage(strconv.FormatInt(i, 10))
				changed = true
			}
		}
	}
	if !changed {
		return args, nil
	}
	return json.Marshal(obj)
}

// members splits a JSON object into its top-level members. It returns the
// first member name that occurs twice, or obj nil when args is not a
// well-formed JSON object (the schema then says what is wrong).
func members(args []byte) (obj map[string]json.RawMessage, dup string) {
	dec := json.NewDecoder(bytes.NewReader(args))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, ""
	}
	obj = map[string]json.RawMessage{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, ""
		}
		name, _ := t.(string)
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, ""
		}
		if _, seen := obj[name]; seen {
			return nil, name
		}
		obj[name] = v
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, ""
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, "" // trailing data
	}
	return obj, ""
}

// refusal turns schema errors into an INVALID_ARGUMENT listing every
// problem by JSON Pointer, with the allowed properties when one is unknown.
func (ts *toolSchema) refusal(tool string, errs []gojsonschema.ResultError) *Error {
	problems := make([]memorybank.Problem, 0, len(errs))
	unknown := false
	for _, re := range errs {
		if re.Type() == "additional_property_not_allowed" {
			unknown = true
		}
		problems = append(problems, memorybank.Problem{Pointer: pointer.Of(re), Message: re.Description()})
	}
	slices.SortStableFunc(problems, func(a, b memorybank.Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: invalid arguments:", tool)
	for _, p := range problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(arguments)"
		}
		fmt.Fprintf(&b, " %s: %s;", ptr, p.Message)
	}
	msg := strings.TrimSuffix(b.String(), ";")
	if unknown {
		msg += fmt.Sprintf(". The allowed properties are: %s", strings.Join(ts.allowed, ", "))
	}
	return &Error{Code: CodeInvalidArgument, Message: msg + ". Nothing was read or written.",
		Details: map[string]any{"problems": problems, "allowedProperties": slices.Clone(ts.allowed)}}
}
