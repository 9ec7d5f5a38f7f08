package main

import (
	"fmt"
	"runtime/debug"

	"k8s.io/apimachinery/pkg/api/resource"
)

// memoryLimitFlag is serve's --memory-limit: Go's soft memory limit
// (runtime/debug.SetMemoryLimit, the GOMEMLIMIT environment variable), a
// quantity such as 3584Mi or 3.5Gi. As the heap nears it the garbage
// collector runs more often, so the peak stays near the limit instead of
// twice the live heap (GOGC=100): a 100,000-pod cluster whose live heap is
// under 2 GiB fits a 4 GiB machine, at the price of the CPU those extra
// collections take (docs/performance.md, "Memory per pod"). It
// is soft: a live heap above the limit is not refused, only collected
// more often. Unset, the process keeps Go's default (GOMEMLIMIT if the
// environment sets it, else no limit).
type memoryLimitFlag struct {
	bytes int64 // 0: not set
}

func (f *memoryLimitFlag) String() string {
	if f.bytes == 0 {
		return ""
	}
	return resource.NewQuantity(f.bytes, resource.BinarySI).String()
}

func (f *memoryLimitFlag) Type() string { return "quantity" }

func (f *memoryLimitFlag) Set(v string) error {
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return fmt.Errorf("want a quantity such as 3584Mi or 3.5Gi, not %q", v)
	}
	if q.Value() <= 0 {
		return fmt.Errorf("the memory limit must be positive, not %q", v)
	}
	f.bytes = q.Value()
	return nil
}

// apply sets the limit when one was given and returns the one it replaced
// (-1 when none was given and nothing changed).
func (f *memoryLimitFlag) apply() int64 {
	if f.bytes == 0 {
		return -1
	}
	return debug.SetMemoryLimit(f.bytes)
}

// listBudgetFlag is serve's --list-memory-budget: how much memory LIST
// requests may hold at once (apiserver.Config.ListMemoryBudget), a
// quantity such as 512Mi. Unset, it is a quarter of --memory-limit when
// that is given (the rest is the live heap's), else the API server's
// default (serving.DefaultListBudget).
type listBudgetFlag struct {
	bytes int64 // 0: not set
}

func (f *listBudgetFlag) String() string {
	if f.bytes == 0 {
		return ""
	}
	return resource.NewQuantity(f.bytes, resource.BinarySI).String()
}

func (f *listBudgetFlag) Type() string { return "quantity" }

func (f *listBudgetFlag) Set(v string) error {
	q, err := resource.ParseQuantity(v)
	if err != nil {
		return fmt.Errorf("want a quantity such as 512Mi or 1Gi, not %q", v)
	}
	if q.Value() <= 0 {
		return fmt.Errorf("the list memory budget must be positive, not %q", v)
	}
	f.bytes = q.Value()
	return nil
}

// budget is the list budget to run with: the flag's, else a quarter of
// the memory limit, else 0 (the API server's default).
func (f *listBudgetFlag) budget(memoryLimit *memoryLimitFlag) int64 {
	if f.bytes != 0 {
		return f.bytes
	}
	return memoryLimit.bytes / 4
}
