package policy

import (
	"fmt"
	"regexp"

	"github.com/google/cel-go/cel"

	kcel "github.com/kubesim/kubesim/apiserver/cel"
)

// The variables a policy's expressions see.
const (
	varObject          = "object"
	varOldObject       = "oldObject"
	varRequest         = "request"
	varParams          = "params"
	varNamespaceObject = "namespaceObject"
	varVariables       = "variables"
)

// Compiler compiles policy expressions in the environment Kubernetes gives
// them. One Compiler is safe for concurrent use.
type Compiler struct {
	env *cel.Env
}

// NewCompiler builds the environment.
func NewCompiler() (*Compiler, error) {
	base, err := kcel.BaseEnv()
	if err != nil {
		return nil, err
	}
	env, err := base.Extend(
		cel.Variable(varObject, cel.DynType),
		cel.Variable(varOldObject, cel.DynType),
		cel.Variable(varRequest, cel.DynType),
		cel.Variable(varParams, cel.DynType),
		cel.Variable(varNamespaceObject, cel.DynType),
		cel.Variable(varVariables, cel.MapType(cel.StringType, cel.DynType)),
	)
	if err != nil {
		return nil, err
	}
	return &Compiler{env: env}, nil
}

// resultKind is what an expression must evaluate to.
type resultKind int

const (
	wantBool resultKind = iota
	wantString
	wantAny
)

// Compile compiles one expression; the error is worded as the
// admissionregistration validation words it.
func (c *Compiler) Compile(expr string, want resultKind) (cel.Program, error) {
	ast, iss := c.env.Compile(expr)
	if iss.Err() != nil {
		return nil, fmt.Errorf("compilation failed: %v", iss.Err())
	}
	out := ast.OutputType()
	switch {
	case want == wantBool && !out.IsExactType(cel.BoolType) && !out.IsExactType(cel.DynType):
		return nil, fmt.Errorf("must evaluate to bool")
	case want == wantString && !out.IsExactType(cel.StringType) && !out.IsExactType(cel.DynType):
		return nil, fmt.Errorf("must evaluate to string")
	}
	return c.env.Program(ast,
		cel.EvalOptions(cel.OptOptimize, cel.OptTrackCost),
		cel.CostLimit(kcel.PerCallLimit),
		cel.InterruptCheckFrequency(100))
}

// celIdentifier is what a variable's name must be to be read as
// variables.<name>.
var celIdentifier = regexp.MustCompile(`^[_a-zA-Z][_a-zA-Z0-9]*$`)
