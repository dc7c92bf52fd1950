package memories_test

import (
	"testing"

	"github.com/agentmemory/agentmemory/memories"
	"github.com/agentmemory/agentmemory/memories/storetest"
)

func TestMemStoreConformance(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) memories.Store { return new(memories.MemStore) })
}
