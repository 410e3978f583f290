// Package hrxserial reads ggml-hrx "hrx debug serial" traces.
package hrxserial
