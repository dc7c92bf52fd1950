package pointer_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xeipuuv/gojsonschema"

	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

func TestEscape(t *testing.T) {
	assert.Equal(t, "a~1b~0c", pointer.Escape("a/b~c"))
	assert.Equal(t, "~01", pointer.Escape("~1"))
	assert.Equal(t, "", pointer.Escape(""))
}

func TestOf(t *testing.T) {
	schema := `{"type":"object","additionalProperties":false,"required":["a/b"],
		"properties":{"a/b":{"type":"string"},"list":{"type":"array","items":{"type":"object","properties":{"x.y":{"type":"integer"}}}}}}`
	s, err := gojsonschema.NewSchema(gojsonschema.NewStringLoader(schema))
	require.NoError(t, err)
	res, err := s.Validate(gojsonschema.NewStringLoader(`{"list":[{},{"x.y":"no"}],"extra~":1}`))
	require.NoError(t, err)
	var got []string
	for _, re := range res.Errors() {
		got = append(got, pointer.Of(re))
	}
	assert.ElementsMatch(t, []string{"/a~1b", "/extra~0", "/list/1/x.y"}, got)
	assert.Equal(t, "", pointer.FromContext(nil))
}
