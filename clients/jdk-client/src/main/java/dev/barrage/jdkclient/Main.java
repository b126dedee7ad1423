package dev.barrage.jdkclient;

import java.io.IOException;

/** Entry point: runs one closed-loop load run and prints its metrics record (see Options.USAGE). */
public final class Main {
    private Main() { }

    public static void main(String[] args) throws InterruptedException {
        if (args.length == 1 && (args[0].equals("--help") || args[0].equals("-h"))) {
            System.out.print(Options.USAGE);
            return;
        }
        if (args.length == 1 && args[0].equals("--version")) {
            System.out.println("jdk-client " + MetricsRecord.VERSION + " (java " + Runtime.version() + ")");
            return;
        }
        // java.net.http tries a refused connection twice by default: one attempt is one connect error
        System.setProperty("jdk.httpclient.disableRetryConnect", "true");
        Options options;
        RequestMix mix;
        try {
            options = Options.parse(args);
            mix = new RequestMix(options);
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("jdk-client: " + e.getMessage());
            System.err.print(Options.USAGE);
            System.exit(2);
            return;
        }
        try {
            LoadRun.Result result = new LoadRun(options, mix).run();
            System.out.println(MetricsRecord.json(options, result));
            System.out.flush();
            // requests still in flight after the grace are aborted: do not wait for them
            System.exit(0);
        } catch (LoadRun.SetupFailure e) {
            System.err.println("jdk-client: " + e.getMessage());
            System.exit(e.exitStatus);
        }
    }
}
