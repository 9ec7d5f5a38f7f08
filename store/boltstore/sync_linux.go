package boltstore

import (
	"os"
	"syscall"
)

// fdatasync flushes f's data and only the metadata needed to read it back
// (the size, new blocks), as bbolt and etcd's WAL do on Linux.
func fdatasync(f *os.File) error { return syscall.Fdatasync(int(f.Fd())) }
