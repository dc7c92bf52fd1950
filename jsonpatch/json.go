package jsonpatch

// UnmarshalJSON decodes a patch with Decode, so a Patch inside a request
// decoded by encoding/json gets the same strict checks (duplicate members,
// unknown ops, pointer syntax). JSON null leaves p unchanged.
func (p *Patch) UnmarshalJSON(data []byte) error {
	if string(trimSpace(data)) == "null" {
		return nil
	}
	d, err := Decode(data)
	if err != nil {
		return err
	}
	*p = d
	return nil
}

// MarshalJSON writes the members the operation uses: "from" always for move
// and copy (even "", the whole document, which the omitempty tag would drop)
// and "value" for add, replace and test (null when absent).
func (o Operation) MarshalJSON() ([]byte, error) {
	b := []byte(`{"op":`)
	b = appendString(b, o.Op)
	b = append(b, `,"path":`...)
	b = appendString(b, o.Path)
	if o.Op == OpMove || o.Op == OpCopy || o.From != "" {
		b = append(b, `,"from":`...)
		b = appendString(b, o.From)
	}
	if o.Value != nil || usesValue(o.Op) {
		v := trimSpace(o.Value)
		if len(v) == 0 {
			v = []byte("null")
		}
		if !validJSON(v) {
			return nil, errorf(ErrInvalidPatch, "operation %s %s: \"value\" is not valid JSON", o.Op, o.Path)
		}
		b = append(b, `,"value":`...)
		b = append(b, v...)
	}
	return append(b, '}'), nil
}
