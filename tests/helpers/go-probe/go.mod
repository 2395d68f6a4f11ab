module tichaos/tests/helpers/go-probe

go 1.19

require github.com/pingcap/failpoint v0.0.0-20240528011301-b51a646c7c86

require github.com/pingcap/errors v0.11.4 // indirect
