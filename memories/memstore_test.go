package memories_test

import (
	"testing"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/storetest"
)

func TestMemStoreConformance(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) memories.Store { return new(memories.MemStore) })
}
