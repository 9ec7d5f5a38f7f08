package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/kubesim/kubesim/cluster"
)

// `kubesim serve -h` names every controller --controllers knows: the list
// comes from the cluster's wiring, not from a copy in the help text.
func TestServeHelpListsEveryController(t *testing.T) {
	t.Parallel()
	var stdout, stderr bytes.Buffer
	run(context.Background(), []string{"serve", "-h"}, &stdout, &stderr)
	help := stdout.String() + stderr.String()
	assert.Contains(t, help, "-controllers")
	for _, name := range cluster.ControllerNames {
		assert.Contains(t, help, name)
	}
}
