//go:build !linux

package boltstore

import "os"

// fdatasync falls back to a full fsync where there is no fdatasync.
func fdatasync(f *os.File) error { return f.Sync() }
