package policy

import (
	"context"
	"fmt"
	"sync"

	"github.com/google/cel-go/cel"
	"github.com/google/cel-go/common/types"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"

	"github.com/kubesim/kubesim/apiserver/admission"
)

// Conditions evaluates admission webhooks' matchConditions with the same
// CEL environment as policies (object, oldObject, request; kubesim's
// environment also declares the policy-only variables, which are null
// here, and has no authorizer). Compiled programs are kept by expression.
// It is safe for concurrent use.
type Conditions struct {
	compiler *Compiler

	mu       sync.Mutex
	programs map[string]cel.Program
}

// NewConditions returns an evaluator with its own compiler.
func NewConditions() (*Conditions, error) {
	c, err := NewCompiler()
	if err != nil {
		return nil, err
	}
	return &Conditions{compiler: c, programs: map[string]cel.Program{}}, nil
}

func (m *Conditions) program(expr string) (cel.Program, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if p, ok := m.programs[expr]; ok {
		return p, nil
	}
	p, err := m.compiler.Compile(expr, wantBool)
	if err != nil {
		return nil, err
	}
	m.programs[expr] = p
	return p, nil
}

// Match reports whether every condition holds, as the real matcher
// decides: any false condition means no match, even if another failed to
// evaluate; otherwise an evaluation error is returned (the webhook's
// failurePolicy then decides).
func (m *Conditions) Match(ctx context.Context, conds []admissionregistrationv1.MatchCondition, a *admission.Attributes) (bool, error) {
	if len(conds) == 0 {
		return true, nil
	}
	act, err := newActivation(a, nil)
	if err != nil {
		return false, err
	}
	var firstErr error
	for _, c := range conds {
		prg, err := m.program(c.Expression)
		if err == nil {
			var v any
			v, _, err = prg.ContextEval(ctx, act)
			if err == nil {
				if v == types.False {
					return false, nil
				}
				if v != types.True {
					err = fmt.Errorf("expression returned a non-boolean value")
				}
			}
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("failed to evaluate match condition %q: %v", c.Name, err)
		}
	}
	if firstErr != nil {
		return false, firstErr
	}
	return true, nil
}
