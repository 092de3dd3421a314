package main

import (
	"bytes"
	"log/slog"
	"strings"
	"testing"
)

func TestLazyAttrsKeepsWhatTheTextHandlerWrites(t *testing.T) {
	var lazy, eager bytes.Buffer
	options := &slog.HandlerOptions{
		Level: slog.LevelWarn,
		// Without times, the two outputs compare byte for byte.
		ReplaceAttr: func(_ []string, a slog.Attr) slog.Attr {
			if a.Key == slog.TimeKey {
				return slog.Attr{}
			}
			return a
		},
	}
	for _, logger := range []*slog.Logger{
		slog.New(newLazyAttrs(slog.NewTextHandler(&lazy, options))),
		slog.New(slog.NewTextHandler(&eager, options)),
	} {
		l := logger.With("conn", "127.0.0.1:5000")
		l.With("args", []any{"doc"}).Debug(">>> INSERT")
		l.With("n", 1).WithGroup("sql").With("table", "t1").Warn("slow", "ms", 250)
		l.WithGroup("").With().Error("failed", "err", "boom")
	}
	if lazy.String() != eager.String() {
		t.Fatalf("lazy handler wrote\n%s\nthe text handler\n%s", lazy.String(), eager.String())
	}
	if strings.Contains(lazy.String(), "INSERT") {
		t.Fatalf("a debug record passed a warn level:\n%s", lazy.String())
	}
	if !strings.Contains(lazy.String(), "conn=127.0.0.1:5000 n=1 sql.table=t1 sql.ms=250") {
		t.Fatalf("attributes or groups lost:\n%s", lazy.String())
	}
}

func TestLazyAttrsDoesNotFormatForDisabledLevels(t *testing.T) {
	var out bytes.Buffer
	logger := slog.New(newLazyAttrs(slog.NewTextHandler(&out, &slog.HandlerOptions{Level: slog.LevelWarn})))
	formatted := false
	logger.With(slog.Any("args", valuer(func() { formatted = true }))).Debug("statement")
	if formatted || out.Len() != 0 {
		t.Fatalf("a disabled record formatted its attributes (output %q)", out.String())
	}
}

// valuer reports when slog resolves it, which formatting an attribute does.
type valuer func()

func (v valuer) LogValue() slog.Value {
	v()
	return slog.StringValue("resolved")
}
