package main

import (
	"context"
	"log/slog"
	"slices"
)

// lazyAttrs is a slog.Handler that keeps the attributes of Logger.With until a record is
// actually handled.
//
// Why: FerretDB logs every SQL statement at debug level as
// `l.With(slog.Any("args", args)).DebugContext(...)`, with the statement's arguments (whole
// documents as JSON). slog's TextHandler formats attributes as soon as With is called,
// before the level is checked, so with debug off every statement still quoted its
// documents: 5% of FerretDB's CPU under the actions benchmark (docs/ferretdb.md). Here With
// only appends; the inner handler formats them for the records that pass its level.
type lazyAttrs struct {
	inner slog.Handler
	attrs []slog.Attr
}

func newLazyAttrs(inner slog.Handler) slog.Handler {
	return lazyAttrs{inner: inner}
}

func (h lazyAttrs) Enabled(ctx context.Context, level slog.Level) bool {
	return h.inner.Enabled(ctx, level)
}

func (h lazyAttrs) Handle(ctx context.Context, record slog.Record) error {
	return h.applied().Handle(ctx, record)
}

func (h lazyAttrs) WithAttrs(attrs []slog.Attr) slog.Handler {
	if len(attrs) == 0 {
		return h
	}
	return lazyAttrs{inner: h.inner, attrs: append(slices.Clip(h.attrs), attrs...)}
}

// WithGroup applies the attributes kept so far first: they belong outside the group.
func (h lazyAttrs) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return lazyAttrs{inner: h.applied().WithGroup(name)}
}

// applied is the inner handler with the kept attributes.
func (h lazyAttrs) applied() slog.Handler {
	if len(h.attrs) == 0 {
		return h.inner
	}
	return h.inner.WithAttrs(h.attrs)
}
