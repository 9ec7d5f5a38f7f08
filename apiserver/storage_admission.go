package apiserver

import (
	"context"
	"fmt"

	"github.com/kubesim/kubesim/api"
	"github.com/kubesim/kubesim/apiserver/admission"
	"github.com/kubesim/kubesim/apiserver/registry"
)

// storageAdmission are the storage plugins of the admission chain (issue
// 12 part 4): DefaultStorageClass, reading the StorageClasses from the
// server's own store, and StorageObjectInUseProtection.
func (s *Server) storageAdmission() admission.Chain {
	list := func(ctx context.Context) ([]*api.StorageClass, error) {
		st, ok := s.Store(api.StorageGroupName, "v1", "storageclasses")
		if !ok {
			return nil, nil
		}
		res, err := st.List(ctx, "", registry.ListOptions{})
		if err != nil {
			return nil, err
		}
		out := make([]*api.StorageClass, 0, len(res.Items))
		for _, o := range res.Items {
			sc, ok := o.(*api.StorageClass)
			if !ok {
				return nil, fmt.Errorf("storageclass store returned %T", o)
			}
			out = append(out, sc)
		}
		return out, nil
	}
	return admission.Chain{&admission.DefaultStorageClass{List: list}, admission.StorageObjectInUseProtection{}}
}
