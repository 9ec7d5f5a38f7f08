//go:build !race

package main

// raceBuild reports whether the tests were built with -race (race_test.go).
const raceBuild = false
