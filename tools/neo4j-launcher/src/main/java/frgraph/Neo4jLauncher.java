package frgraph;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

import org.neo4j.configuration.GraphDatabaseInternalSettings;
import org.neo4j.configuration.GraphDatabaseSettings;
import org.neo4j.configuration.connectors.BoltConnector;
import org.neo4j.configuration.helpers.SocketAddress;
import org.neo4j.dbms.api.DatabaseManagementService;
import org.neo4j.dbms.api.DatabaseManagementServiceBuilder;
import org.neo4j.graphdb.config.Setting;
import org.neo4j.io.ByteUnit;

/**
 * Starts a real Neo4j Community DBMS (embedded API) with a Bolt connector on 127.0.0.1, for
 * integration tests on machines without Docker.
 *
 * <p>Usage: {@code java -cp 'target/classes:target/dependency/*' frgraph.Neo4jLauncher <home> <bolt-port>}
 * (see tools/neo4j_server.py for the JVM flags).
 *
 * <p>Prints exactly {@code NEO4J_READY bolt://127.0.0.1:<port>} on stdout once the default
 * database answers {@code RETURN 1}; callers wait for that line. Runs until SIGTERM/SIGINT, which
 * trigger a clean {@code dbms.shutdown()} via a shutdown hook. Exits non-zero if startup fails.
 */
public final class Neo4jLauncher {
    private static final String HOST = "127.0.0.1";

    /**
     * System property: when true, also shut down once stdin reaches EOF. The Python wrapper keeps
     * a pipe open on stdin, so the server goes away even if its parent is SIGKILLed (no stray
     * JVMs after a killed test run).
     */
    static final String EXIT_ON_STDIN_EOF = "frgraph.exitOnStdinEof";

    private Neo4jLauncher() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 2) {
            System.err.println("usage: Neo4jLauncher <home-dir> <bolt-port>");
            System.exit(2);
        }
        Path home = Path.of(args[0]).toAbsolutePath();
        int port = Integer.parseInt(args[1]);
        Files.createDirectories(home);

        // Our own stdout stream: the READY line must reach the parent even if something in the
        // DBMS replaces System.out, and it must be flushed at once (stdout is a pipe or file).
        PrintStream out = new PrintStream(
                new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);

        // Hook registered before startup so a SIGTERM during startup still shuts down cleanly.
        AtomicReference<DatabaseManagementService> dbmsRef = new AtomicReference<>();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                DatabaseManagementService dbms = dbmsRef.get();
                if (dbms != null) {
                    dbms.shutdown();
                }
            } catch (Throwable t) {
                t.printStackTrace();
            } finally {
                stopped.countDown();
            }
        }, "neo4j-launcher-shutdown"));

        if (Boolean.getBoolean(EXIT_ON_STDIN_EOF)) {
            watchStdinForEof();
        }

        try {
            DatabaseManagementService dbms = newBuilder(home, port).build();
            dbmsRef.set(dbms);
            dbms.database(GraphDatabaseSettings.DEFAULT_DATABASE_NAME).executeTransactionally("RETURN 1");
        } catch (Throwable t) {
            // e.g. Bolt port already in use (PortBindException ... "Address already in use").
            System.err.println("Neo4j failed to start:");
            t.printStackTrace();
            System.exit(1); // runs the shutdown hook; Neo4j's non-daemon threads can't keep us alive
        }

        out.println("NEO4J_READY bolt://" + HOST + ":" + port);
        out.flush();

        // Keep the JVM alive until the shutdown hook has run.
        stopped.await();
    }

    private static DatabaseManagementServiceBuilder newBuilder(Path home, int port) {
        DatabaseManagementServiceBuilder builder = new DatabaseManagementServiceBuilder(home)
                .setConfig(BoltConnector.enabled, true)
                .setConfig(BoltConnector.listen_address, new SocketAddress(HOST, port))
                .setConfig(BoltConnector.advertised_address, new SocketAddress(HOST, port))
                // Auth off: the driver may pass any credentials.
                .setConfig(GraphDatabaseSettings.auth_enabled, false)
                // Without an explicit value the page cache sizes itself from total RAM. 256 MiB
                // suits tests; benchmarks on large stores raise it (neo4j_server.py --page-cache).
                .setConfig(GraphDatabaseSettings.pagecache_memory,
                        ByteUnit.mebiBytes(Long.getLong("frgraph.pageCacheMiB", 256L)))
                // dbms.memory.transaction.total.max: keep all running transactions well below the
                // heap (-Xmx, default 1500m) so a runaway query fails with a Neo4j error, not an OOM.
                .setConfig(GraphDatabaseSettings.memory_transaction_global_max_size,
                        ByteUnit.mebiBytes(Long.getLong("frgraph.transactionMaxMiB", 1024L)))
                // dbms.usage_report.enabled=false: no phoning home from tests/CI.
                .setConfig(GraphDatabaseSettings.udc_enabled, false);
        return withoutShutdownQuietPeriod(builder);
    }

    /**
     * internal.dbms.bolt.netty_server_shutdown_quiet_period (default 5 s): Bolt waits it out once
     * per Netty event-loop group, so every stop took ~12 s. A throwaway test server needs no quiet
     * period; stop now takes < 1 s. The setting holds seconds as an Integer on 5.26 and a Duration
     * on 2026.x; this source builds against both lines.
     */
    @SuppressWarnings("unchecked")
    private static DatabaseManagementServiceBuilder withoutShutdownQuietPeriod(
            DatabaseManagementServiceBuilder builder) {
        Setting<?> quietPeriod = GraphDatabaseInternalSettings.netty_server_shutdown_quiet_period;
        if (quietPeriod.defaultValue() instanceof Duration) {
            return builder.setConfig((Setting<Duration>) quietPeriod, Duration.ZERO);
        }
        return builder.setConfig((Setting<Integer>) quietPeriod, 0);
    }

    private static void watchStdinForEof() {
        Thread watcher = new Thread(() -> {
            try {
                while (System.in.read() != -1) {
                    // ignore input; only EOF matters
                }
            } catch (IOException ignored) {
                // a broken stdin counts as EOF
            }
            System.err.println("stdin closed (parent gone): shutting down Neo4j");
            System.exit(0); // runs the shutdown hook
        }, "neo4j-launcher-stdin-watch");
        watcher.setDaemon(true);
        watcher.start();
    }
}
