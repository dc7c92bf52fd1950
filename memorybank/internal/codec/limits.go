package codec

import "fmt"

// MaxDepth is the deepest a value of a document may nest arrays and
// objects. The stored form indents each line by its depth, so nesting is
// what makes a small document expand: 18 KB nested 9,000 deep would be
// about 162 MB stored. Documents of a memory bank nest a few levels; a
// hundred leaves room for any real one, and bounds the stored form to at
// most about 200 times what was sent (and Parse bounds it absolutely).
const MaxDepth = 100

// DepthError reports a value nested deeper than MaxDepth. It is returned
// before the value is expanded.
type DepthError struct {
	Depth int // the depth found (at least Max+1)
	Max   int
}

func (e *DepthError) Error() string {
	return fmt.Sprintf("nested %d arrays or objects deep, the limit is %d", e.Depth, e.Max)
}

// SizeError reports a stored form that grew past the limit Parse was
// given; Parse stops there, so Size is where it stopped, not the size the
// whole would have had.
type SizeError struct {
	Size int // bytes the stored form would have with its next line (more than Max)
	Max  int
}

func (e *SizeError) Error() string {
	return fmt.Sprintf("the stored form is over %d bytes (stopped at %d)", e.Max, e.Size)
}

// Depth returns how deep the JSON text data nests arrays and objects
// (0 for a scalar), reading its bytes once without decoding or allocating,
// so that a request can be judged by its depth before any work. Brackets
// inside strings do not count. On a text that is not JSON it returns the
// depth of its brackets; whoever decodes it refuses it then.
func Depth(data []byte) int {
	depth, deepest := 0, 0
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '"':
			for i++; i < len(data) && data[i] != '"'; i++ {
				if data[i] == '\\' {
					i++
				}
			}
		case '[', '{':
			if depth++; depth > deepest {
				deepest = depth
			}
		case ']', '}':
			if depth > 0 {
				depth--
			}
		}
	}
	return deepest
}
