// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.connect;

import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A broker's address as the operator gives it: {@code HOST:PORT}, an IPv6 host in brackets ({@code [::1]:9092}). */
public record HostPort(String host, int port) {

    private static final Pattern BRACKETED = Pattern.compile("\\[([^\\[\\]]+)]:(\\d+)");
    private static final Pattern PLAIN = Pattern.compile("([^:\\[\\]]+):(\\d+)");
    /** What the line that refuses an address says to do. */
    public static final String FORM = "give HOST:PORT, e.g. 10.0.0.1:9092 (an IPv6 address in brackets: [::1]:9092)";

    /**
     * @throws IllegalArgumentException saying what is missing or wrong ("has no port"), to follow the address
     */
    public static HostPort parse(String given) {
        Matcher address = (given.startsWith("[") ? BRACKETED : PLAIN).matcher(given);
        if (address.matches()) {
            int port = Integer.parseInt(address.group(2).length() > 5 ? "0" : address.group(2));
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("has port " + address.group(2) + ", not one of 1-65535");
            }
            return new HostPort(address.group(1), port);
        }
        // kafka-clients would read "::1" as host ":" and port 1: an IPv6 address without brackets is ambiguous
        int colon = given.lastIndexOf(':');
        if (!given.startsWith("[") && given.indexOf(':') != colon) {
            throw new IllegalArgumentException("is an IPv6 address without brackets, or has no port");
        }
        if (colon < 0 || colon == given.length() - 1 || given.endsWith("]")) {
            throw new IllegalArgumentException("has no port");
        }
        if (colon == 0 || given.startsWith("[]")) {
            throw new IllegalArgumentException("has no host");
        }
        throw new IllegalArgumentException("has no port number after its last ':'");
    }
}
