package dev.barrage.jdkclient;

import java.util.Arrays;

/**
 * The suite's steady-state rule in closed loop (docs/steady-state.md, client/src/steady.c's
 * successful_rps rule), so that jdk-client warms its own JVM up as the suite warms a server: over
 * the last {@link #WINDOW} whole seconds of successful requests/s, with M their median, the
 * Theil-Sen change across the window and the median absolute deviation are each at most
 * {@link #TOLERANCE} x M.
 */
final class Steady {
    static final int WINDOW = 5;
    static final double TOLERANCE = 0.10;

    private Steady() { }

    /** True when the last WINDOW values of {@code perSecond[0..count)} pass the rule. */
    static boolean reached(double[] perSecond, int count) {
        if (count < WINDOW) return false;
        double[] window = Arrays.copyOfRange(perSecond, count - WINDOW, count);
        double m = median(window.clone());
        if (!(m > 0)) return false;
        double[] slopes = new double[WINDOW * (WINDOW - 1) / 2];
        int k = 0;
        for (int i = 0; i < WINDOW; i++)
            for (int j = i + 1; j < WINDOW; j++) slopes[k++] = (window[j] - window[i]) / (j - i);
        double change = Math.abs(median(slopes)) * (WINDOW - 1);
        double[] deviations = new double[WINDOW];
        for (int i = 0; i < WINDOW; i++) deviations[i] = Math.abs(window[i] - m);
        return change <= TOLERANCE * m && median(deviations) <= TOLERANCE * m;
    }

    /** The median of {@code values} (at least one); sorts them. */
    private static double median(double[] values) {
        Arrays.sort(values);
        int n = values.length;
        return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
    }
}
