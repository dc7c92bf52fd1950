package history_test

import (
	"context"

	"github.com/mnemobank/mnemobank/memorybank/internal/banktest"
)

// The helpers shared with the other tests over a Bank
// (memorybank/internal/banktest), under the names these tests use.
var (
	ctx          = context.Background()
	forEachStore = banktest.ForEachStore
	newBank      = banktest.NewBank
	raw          = banktest.Raw
	op           = banktest.Op
	mv           = banktest.Mv
	decode       = banktest.Decode
	mustWrite    = banktest.MustWrite
	mustRead     = banktest.MustRead
)
