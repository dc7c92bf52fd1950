// Package histio is the layout of a document's history in a Store, which
// three packages read: the Bank (the tombstone of a deleted document,
// which keeps its versions from repeating), memorybank/history (the
// entries it records and reads) and memorybank/archive (which moves a
// history with its document). The layout is the stored format: banks
// written before keep reading as they are.
package histio

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
)

// Prefix is the root of every document's history: the history of a
// document lives under Prefix + <bank prefix> + <SHA-256 of its path>/.
const Prefix = ".history/"

// TombstoneName is the name, in a history directory, of the record of the
// version the last delete consumed.
const TombstoneName = "deleted.json"

// Dir is the directory of the history of the document at path in the bank
// at prefix: its length is bounded whatever the path, and it holds nothing
// but the entries and the tombstone of that document.
func Dir(prefix, path string) string {
	sum := sha256.Sum256([]byte(path))
	return Prefix + prefix + hex.EncodeToString(sum[:]) + "/"
}

// Key is the key of the entry of one version: its zero-padded number
// sorts the entries of a directory by version.
func Key(prefix, path string, version int64) string {
	return fmt.Sprintf("%s%020d.json", Dir(prefix, path), version)
}

// Tombstone is the key of the tombstone.
func Tombstone(prefix, path string) string { return Dir(prefix, path) + TombstoneName }

type tombstone struct {
	Version int64 `json:"version"` // the version the delete consumed
}

// EncodeTombstone is the tombstone of a delete that consumed version.
func EncodeTombstone(version int64) []byte {
	data, _ := json.Marshal(tombstone{Version: version})
	return data
}

// DecodeTombstone reads a tombstone; ok is false when data is not one.
func DecodeTombstone(data []byte) (version int64, ok bool) {
	var t tombstone
	if json.Unmarshal(data, &t) != nil || t.Version < 0 {
		return 0, false
	}
	return t.Version, true
}
