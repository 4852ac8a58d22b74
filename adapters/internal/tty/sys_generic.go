//go:build linux && (arm64 || riscv64 || loong64)

package tty

// The system call numbers of the generic Linux table (arm64, riscv64,
// loong64).
var local = genericCalls
