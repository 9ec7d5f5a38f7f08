//go:build race

package main

// raceBuild reports whether the tests were built with -race: a build the
// tests start themselves uses the same flag, so that it finds every
// package compiled already.
const raceBuild = true
