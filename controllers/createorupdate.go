package controllers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/client"
)

// OperationResult says what CreateOrUpdate did (controllerutil's words).
type OperationResult string

// The outcomes of CreateOrUpdate.
const (
	OperationResultNone    OperationResult = "unchanged"
	OperationResultCreated OperationResult = "created"
	OperationResultUpdated OperationResult = "updated"
)

// CreateOrUpdate makes the object named like obj look as mutate says, with
// owner (of kind ownerGVK) as its controller (controllerutil.CreateOrUpdate
// plus SetControllerReference). It reads the object from the API server;
// when absent, mutate fills obj and it is created; when present, mutate
// changes a copy of what is stored and it is updated only if something
// changed. mutate must set only what the controller owns, so that fields
// others set (defaults, the status) survive. An object controlled by
// another owner is an AlreadyOwnedError; a Conflict is returned (the key is
// retried with a fresh read).
func CreateOrUpdate[O api.Object](ctx context.Context, res *client.Resource[O], owner api.Object, ownerGVK schema.GroupVersionKind, obj O, mutate func(O) error) (OperationResult, O, error) {
	m := api.Meta(obj)
	existing, err := res.Get(ctx, m.Namespace, m.Name)
	if api.IsNotFound(err) {
		if err := mutate(obj); err != nil {
			return OperationResultNone, obj, err
		}
		if err := SetControllerReference(api.Meta(owner), ownerGVK, api.Meta(obj)); err != nil {
			return OperationResultNone, obj, err
		}
		created, err := res.Create(ctx, obj)
		if err != nil {
			return OperationResultNone, obj, err
		}
		return OperationResultCreated, created, nil
	}
	if err != nil {
		return OperationResultNone, obj, err
	}
	before, err := json.Marshal(existing)
	if err != nil {
		return OperationResultNone, existing, err
	}
	if err := mutate(existing); err != nil {
		return OperationResultNone, existing, err
	}
	if err := SetControllerReference(api.Meta(owner), ownerGVK, api.Meta(existing)); err != nil {
		return OperationResultNone, existing, err
	}
	after, err := json.Marshal(existing)
	if err != nil {
		return OperationResultNone, existing, err
	}
	if bytes.Equal(before, after) {
		return OperationResultNone, existing, nil
	}
	updated, err := res.Update(ctx, existing)
	if err != nil {
		return OperationResultNone, existing, err
	}
	return OperationResultUpdated, updated, nil
}

// UpdateStatus writes the status change mutate makes to obj through the
// status subresource. Nothing is written when mutate changes nothing. On a
// Conflict (someone wrote the object since it was read) it reads the
// object again, applies mutate again and retries, up to the controller's
// StatusRetries times (client-go's retry.RetryOnConflict): mutate must
// therefore compute the status from its argument, not from the stale obj.
func (c *ObjectController[T]) UpdateStatus(ctx context.Context, obj T, mutate func(T)) (T, error) {
	return UpdateStatus(ctx, c.primary, obj, c.retries, mutate)
}

// UpdateStatus is ObjectController.UpdateStatus for any resource.
func UpdateStatus[T api.Object](ctx context.Context, res *client.Resource[T], obj T, retries int, mutate func(T)) (T, error) {
	if retries <= 0 {
		retries = DefaultStatusRetries
	}
	cur := api.DeepCopy(obj).(T)
	var lastErr error
	for range retries {
		before, err := json.Marshal(cur)
		if err != nil {
			return cur, err
		}
		mutate(cur)
		after, err := json.Marshal(cur)
		if err != nil {
			return cur, err
		}
		if bytes.Equal(before, after) {
			return cur, nil
		}
		out, err := res.UpdateStatus(ctx, cur)
		if err == nil {
			return out, nil
		}
		if !api.IsConflict(err) {
			return cur, err
		}
		lastErr = err
		m := api.Meta(cur)
		fresh, err := res.Get(ctx, m.Namespace, m.Name)
		if err != nil {
			return cur, err
		}
		cur = fresh
	}
	return cur, fmt.Errorf("updating the status of %s after %d conflicts: %w", objectKey(cur), retries, lastErr)
}

func objectKey(obj api.Object) string {
	m := api.Meta(obj)
	if m.Namespace == "" {
		return m.Name
	}
	return m.Namespace + "/" + m.Name
}
