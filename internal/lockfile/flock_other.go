//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly || windows)

package lockfile

import (
	"errors"
	"os"
)

func supported() error { return errors.ErrUnsupported }

func tryLock(*os.File) (bool, error) { return false, errors.ErrUnsupported }

func unlock(*os.File) error { return errors.ErrUnsupported }
