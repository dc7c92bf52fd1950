package archive

import (
	"io"
	"strconv"
)

// screened wraps a walk over the archive's entries with the bank's secret
// screen (memorybank.Options.Secrets): every entry (documents, history
// entries, memories files, other keys) is screened before f sees it, so a
// credential in an archive refuses the whole import at verification,
// before anything is written, or is redacted in what is written.
func (im *importer) screened(f func(entry) error) func(entry) error {
	s := im.bank.Options().Secrets
	if s == nil {
		return f
	}
	return func(e entry) error {
		where := "entry " + strconv.Quote(e.name) + " of the archive"
		out, err := s.Screen(where, string(e.data))
		if err != nil {
			return &EntryError{Entry: e.name, Index: e.index, Reason: err.Error(), Err: err}
		}
		if out != string(e.data) {
			e.data = []byte(out)
		}
		return f(e)
	}
}

// readRef reads the entry r again for writing, screened as the walk that
// verified it screened it: redacted alike, so what is written matches what
// was planned.
func (im *importer) readRef(r ref, src *io.SectionReader) ([]byte, error) {
	data, err := r.read(src)
	if err != nil {
		return nil, err
	}
	e := entry{name: storeDir + r.key, key: r.key, data: data}
	err = im.screened(func(s entry) error { data = s.data; return nil })(e)
	return data, err
}
