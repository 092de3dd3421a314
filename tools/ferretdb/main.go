// Command ferretdb runs FerretDB v1 embedded, with its SQLite backend, as the
// MongoDB-wire database of `npm start` and the test suite; production runs MongoDB
// (docker-compose.yml), and the service keeps to what both do.
//
// The upstream `cmd/ferretdb` binary panics when built with `go install`
// (FerretDB issue #2982: build/version/version.txt is generated at release
// time). The embeddable package sets its own version, so we wrap it instead.
package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"syscall"

	"github.com/FerretDB/FerretDB/ferretdb"
)

func main() {
	listen := flag.String("listen", "127.0.0.1:27017", "TCP address to listen on")
	dataDir := flag.String("data", ".data/ferretdb", "directory of the SQLite databases")
	logLevel := flag.String("log-level", "warn", "debug, info, warn or error")
	flag.Parse()

	// The collector runs when the heap has grown by 400% instead of Go's 100%: FerretDB
	// allocates per document it converts, and at GOGC=100 collection is a large share of its
	// CPU; the price is a somewhat larger peak RSS (docs/ferretdb.md). GOGC in the
	// environment still wins.
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(400)
	}

	abs, err := filepath.Abs(*dataDir)
	if err != nil {
		fail(err)
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		fail(err)
	}

	var level slog.Level
	if err := level.UnmarshalText([]byte(*logLevel)); err != nil {
		fail(err)
	}
	logger := slog.New(newLazyAttrs(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level})))

	db, err := ferretdb.New(&ferretdb.Config{
		Listener: ferretdb.ListenerConfig{TCP: *listen},
		Logger:   logger,
		Handler:  "sqlite",
		// WAL (FerretDB's default) with synchronous=NORMAL: a commit is durable once in the
		// WAL, which survives the process being killed; only a power loss of the machine may
		// drop the last commits. FULL would fsync every single write.
		SQLiteURL: "file:" + abs + "/?_pragma=synchronous(normal)",
	})
	if err != nil {
		fail(err)
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	logger.Warn("ferretdb listening", "addr", *listen, "data", abs)
	if err := db.Run(ctx); err != nil && ctx.Err() == nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "ferretdb:", err)
	os.Exit(1)
}
