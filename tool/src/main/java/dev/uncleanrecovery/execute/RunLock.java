// kafka-unclean-recovery — elects the replica that loses the least when Kafka partitions are offline.
// SPDX-License-Identifier: Apache-2.0
package dev.uncleanrecovery.execute;

import dev.uncleanrecovery.UserInputException;
import dev.uncleanrecovery.cluster.ClusterDiscovery;
import dev.uncleanrecovery.formats.RunLockFate;
import dev.uncleanrecovery.support.Pause;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.protocol.Errors;

/**
 * One run at a time changes a cluster's replica orders and leaders, from any host: a marker the controller keeps.
 * Two runs that reorder, elect and restore the same partitions at once can undo each other: a restore puts back the
 * other run's live reorder, whose unclean election then takes the first live replica in the original order.
 *
 * <p>The lock is a topic, {@value #LOCK_TOPIC}: CreateTopics is the compare-and-set Kafka offers every client (of two
 * creations of one name exactly one succeeds). Who holds it is a second topic whose name says it,
 * {@code __kafka_unclean_recovery_lock.<lock topic id>.pid-<pid>.started-<ms>.ticks-<start>.boot-<boot id>
 * .pidns-<inode>.<host>} (see {@link RunOwner}), created right after; tied to the lock by its id, so an owner topic a
 * killed run left is never read as the owner of a newer lock. Both are deleted by id when the run ends. The controller
 * quorum and one unfenced broker are all it needs, which is what an election needs anyway: where the lock cannot be
 * taken (controller unreachable, CREATE or DELETE not granted, a CreateTopicPolicy that refuses it) the run stops
 * before changing anything, unless the operator runs without it.
 *
 * <p>A lock whose owner has provably ended (same boot and pid namespace as this process, and its pid gone or reused:
 * kill -9, a lost SSH session) is taken over. Any other is named and left: held from another host or container, by an
 * older version of the tool, or with no owner topic, only the operator can tell that run has ended, and
 * {@code --break-lock <id>} then removes exactly that lock and its owner topic, after checking that the id is the
 * lock's.
 */
public final class RunLock implements AutoCloseable {

    public static final String LOCK_TOPIC = ClusterDiscovery.RUN_LOCK_TOPIC;
    private static final String OWNER_PREFIX = LOCK_TOPIC + ".";
    /** Kafka's limit on a topic name's length. */
    private static final int MAX_TOPIC_NAME = 249;
    /** How long a lock without an owner topic may be another run between its two creations. */
    private static final Duration OWNER_GRACE = Duration.ofSeconds(3);
    private static final int ATTEMPTS = 5;
    private static final String UNKNOWN = "unknown";

    /** The lock could not be taken: nothing was changed, and the message says why and what to do. */
    public static class NotTaken extends RuntimeException {
        NotTaken(String message) {
            super(message);
        }
    }

    /** The lock is held by another run, which the message names. */
    public static final class Held extends NotTaken {
        Held(String message) {
            super(message);
        }
    }

    /** The lock as found: its id, and the run that holds it when its owner topic says. */
    record Holder(Uuid lockId, RunOwner owner, Uuid ownerTopicId) {
        String describe() {
            return owner == null ? "a run that did not say who it is (the lock has no owner topic)" : owner.describe();
        }
    }

    private final ControllerCalls controller;
    private final Uuid lockId;
    private final Uuid ownerTopicId;
    private final Consumer<String> progress;

    private RunLock(ControllerCalls controller, Uuid lockId, Uuid ownerTopicId, Consumer<String> progress) {
        this.controller = controller;
        this.lockId = lockId;
        this.ownerTopicId = ownerTopicId;
        this.progress = progress;
    }

    /**
     * Takes the lock for this process.
     *
     * @param breakLock the id of a lock the operator knows is abandoned: removed first, and only that one
     * @throws Held when another run holds it
     * @throws NotTaken when the lock cannot be taken at all (the controller refused it)
     * @throws UserInputException when this principal may not create the lock topic
     */
    public static RunLock take(ControllerCalls controller, Uuid breakLock, Consumer<String> progress) {
        if (breakLock != null) {
            breakLock(controller, breakLock, progress);
        }
        RunOwner self = RunOwner.current();
        for (int attempt = 1; ; attempt++) {
            ControllerCalls.TopicCreation created = controller.createTopic(LOCK_TOPIC);
            if (created.error() == Errors.NONE) {
                Uuid ownerTopic = announce(controller, created.topicId(), self);
                removeOrphans(controller, created.topicId());
                return new RunLock(controller, created.topicId(), ownerTopic, progress);
            }
            if (created.error() != Errors.TOPIC_ALREADY_EXISTS) {
                String why = "cannot take the run lock (topic " + LOCK_TOPIC + "): " + created.refusal() + "; nothing was"
                        + " changed. It keeps two runs from undoing each other's reorders: fix that, or run with"
                        + " --without-lock if no other run can be active";
                // a missing ACL is bad input like any other (exit 2); a refusal of the controller's is a failure
                throw created.error().exception() instanceof AuthorizationException ? new UserInputException(why)
                        : new NotTaken(why);
            }
            Optional<Holder> holder = holder(controller);
            if (holder.isEmpty()) {
                continue; // released in between: try again
            }
            Holder held = holder.get();
            RunOwner.Seen seen = held.owner() == null ? null : held.owner().seen();
            if (seen != null && seen.liveness() == RunOwner.Liveness.ENDED && attempt < ATTEMPTS) {
                progress.accept("the run lock " + held.lockId() + " was left by " + held.describe() + ", which has"
                        + " ended: taking it over (if that run reordered replicas, its journal beside its plan lists"
                        + " them, and the next run of that plan puts them back)");
                controller.deleteTopic(held.lockId());
                if (held.ownerTopicId() != null) {
                    controller.deleteTopic(held.ownerTopicId());
                }
                continue;
            }
            String unknown = seen != null && seen.liveness() == RunOwner.Liveness.UNKNOWN
                    ? " This host cannot tell whether it has ended: " + seen.why() + "." : "";
            throw new Held("another run is changing this cluster: " + held.describe() + " holds the run lock "
                    + held.lockId() + " (topic " + LOCK_TOPIC + "). Nothing was changed." + unknown + " Wait for it to"
                    + " finish; if that run is gone (check on its host), run again with --break-lock " + held.lockId());
        }
    }

    /**
     * Removes the lock of id {@code lockId} and its owner topics, and nothing else: the id is looked up first, and one
     * that is not this cluster's run lock is refused (a topic id pasted from a plan has the same form, and DeleteTopics
     * by id deletes any topic for good).
     *
     * @throws UserInputException when no topic of that id is the run lock; nothing was deleted
     * @throws NotTaken          when the controller refused to delete it
     */
    public static void breakLock(ControllerCalls controller, Uuid lockId, Consumer<String> progress) {
        // every topic this principal may describe: the lock's own name, and what an id that is not the lock names
        Map<String, Uuid> topics = controller.topicsNamed("");
        String named = topics.entrySet().stream().filter(t -> t.getValue().equals(lockId)).map(Map.Entry::getKey)
                .findFirst().orElse(null);
        if (!LOCK_TOPIC.equals(named)) {
            Uuid lock = topics.get(LOCK_TOPIC);
            throw new UserInputException("--break-lock " + lockId + ": "
                    + (named == null ? "no topic of this cluster has that id" : "that id is topic '" + named + "'")
                    + ", not the run lock (topic " + LOCK_TOPIC + (lock == null ? ", which does not exist now"
                    : ", id " + lock) + "); nothing was deleted. Give the id that the refusal of the run lock printed");
        }
        List<Uuid> doomed = new ArrayList<>(List.of(lockId));
        topics.forEach((name, id) -> {
            if (name.startsWith(OWNER_PREFIX + lockId + ".")) {
                doomed.add(id);
            }
        });
        // one request: both names share the prefix the operator's ACLs cover, so the controller refuses both or neither
        Map<Uuid, Errors> refused = controller.deleteTopics(doomed);
        Errors lock = refused.get(lockId);
        if (lock != Errors.NONE && lock != Errors.UNKNOWN_TOPIC_ID) {
            throw new NotTaken("cannot break the run lock " + lockId + ": " + lock.name() + "; nothing was changed");
        }
        progress.accept((lock == Errors.NONE ? "run lock " + lockId + " broken (--break-lock)"
                : "run lock " + lockId + " is gone already") + (doomed.size() > 1 ? ", with its owner topic" : ""));
    }

    /** The owner topic that says who holds the lock; null when it could not be created (the lock still holds). */
    private static Uuid announce(ControllerCalls controller, Uuid lockId, RunOwner self) {
        ControllerCalls.TopicCreation created = controller.createTopic(ownerTopic(lockId, self));
        return created.error() == Errors.NONE ? created.topicId() : null;
    }

    /**
     * The owner topic's name: {@code <prefix><lock id>.pid-4242.started-<ms>.ticks-<start ticks>.boot-<boot id>
     * .pidns-<inode>.<host>}, unknown fields as "unknown"; the host last, cut where the name would pass Kafka's limit.
     */
    static String ownerTopic(Uuid lockId, RunOwner owner) {
        RunOwner.ProcessTable table = owner.table();
        String name = OWNER_PREFIX + lockId + ".pid-" + owner.pid()
                + ".started-" + (owner.started() == null ? UNKNOWN : owner.started().toEpochMilli())
                + ".ticks-" + (owner.startTicks() < 0 ? UNKNOWN : owner.startTicks())
                + ".boot-" + (table == null ? UNKNOWN : table.bootId())
                + ".pidns-" + (table == null ? UNKNOWN : table.pidNamespace())
                + "." + topicSafe(owner.host());
        return name.substring(0, Math.min(name.length(), MAX_TOPIC_NAME));
    }

    /** Owner topics of locks that no longer exist (a run killed between removing its lock and its owner topic). */
    private static void removeOrphans(ControllerCalls controller, Uuid lockId) {
        try {
            controller.topicsNamed(OWNER_PREFIX).forEach((name, id) -> {
                if (!name.startsWith(OWNER_PREFIX + lockId + ".")) {
                    controller.deleteTopic(id);
                }
            });
        } catch (RuntimeException e) {
            // left for the next run: an orphan names no live lock, so it is never read as an owner
        }
    }

    /**
     * Who holds the lock: its id, and the owner topic that names its id. A run creates that topic right after the
     * lock, so a lock without one is given {@link #OWNER_GRACE} to get it. Empty when the lock is gone.
     */
    static Optional<Holder> holder(ControllerCalls controller) {
        long deadline = System.nanoTime() + OWNER_GRACE.toNanos();
        while (true) {
            Map<String, Uuid> topics = controller.topicsNamed(LOCK_TOPIC);
            Uuid lockId = topics.get(LOCK_TOPIC);
            if (lockId == null) {
                return Optional.empty();
            }
            String prefix = OWNER_PREFIX + lockId + ".";
            for (Map.Entry<String, Uuid> topic : topics.entrySet()) {
                if (topic.getKey().startsWith(prefix)) {
                    RunOwner owner = parseOwner(topic.getKey().substring(prefix.length()));
                    if (owner != null) {
                        return Optional.of(new Holder(lockId, owner, topic.getValue()));
                    }
                }
            }
            if (System.nanoTime() > deadline) {
                return Optional.of(new Holder(lockId, null, null));
            }
            Pause.millis(200, "the run lock's owner topic");
        }
    }

    /**
     * The owner an owner topic's name (after {@code <prefix><lock id>.}) names; null when it names none. The form of
     * older versions, "4242.1764824400123.host-a", names a pid and a host but no process table: such a lock is held
     * until the operator breaks it.
     */
    static RunOwner parseOwner(String tail) {
        try {
            if (tail.startsWith("pid-")) {
                String[] parts = tail.split("\\.", 6);
                if (parts.length < 6 || !parts[1].startsWith("started-") || !parts[2].startsWith("ticks-")
                        || !parts[3].startsWith("boot-") || !parts[4].startsWith("pidns-")) {
                    return null;
                }
                String started = parts[1].substring(8);
                String ticks = parts[2].substring(6);
                String boot = parts[3].substring(5);
                String namespace = parts[4].substring(6);
                RunOwner.ProcessTable table = boot.equals(UNKNOWN) || namespace.equals(UNKNOWN) ? null
                        : new RunOwner.ProcessTable(boot, Long.parseLong(namespace));
                return new RunOwner(parts[5], Long.parseLong(parts[0].substring(4)),
                        started.equals(UNKNOWN) ? null : Instant.ofEpochMilli(Long.parseLong(started)), table,
                        ticks.equals(UNKNOWN) ? -1 : Long.parseLong(ticks));
            }
            String[] parts = tail.split("\\.", 3);
            if (parts.length < 3) {
                return null;
            }
            long started = Long.parseLong(parts[1]);
            return new RunOwner(parts[2], Long.parseLong(parts[0]), started == 0 ? null : Instant.ofEpochMilli(started),
                    null, -1);
        } catch (IllegalArgumentException e) {
            return null; // NumberFormatException, or a boot id that is no UUID
        }
    }

    /** A host name as a topic name may carry it: Kafka allows only ASCII letters, digits, '.', '_' and '-'. */
    static String topicSafe(String host) {
        return host.replaceAll("[^a-zA-Z0-9._-]", "-");
    }

    public Uuid lockId() {
        return lockId;
    }

    /**
     * Removes the lock and its owner topic in one request: both names share the prefix the operator's ACLs cover, so
     * the controller refuses both or neither.
     *
     * @return what became of it, for the run's result file and audit log: a lock left in place keeps every run from
     *         another host or container out until an operator breaks it
     */
    public RunLockFate release() {
        try {
            List<Uuid> topics = ownerTopicId == null ? List.of(lockId) : List.of(lockId, ownerTopicId);
            Errors refused = controller.deleteTopics(topics).get(lockId);
            if (refused == Errors.NONE) {
                return new RunLockFate(lockId.toString(), RunLockFate.Fate.RELEASED, null);
            }
            if (refused == Errors.UNKNOWN_TOPIC_ID) {
                return new RunLockFate(lockId.toString(), RunLockFate.Fate.REMOVED_BY_ANOTHER, "gone before this run"
                        + " removed it: someone removed it (--break-lock) while this run held it");
            }
            return leftInPlace(refused == null ? "the controller's answer does not mention it" : refused.name());
        } catch (RuntimeException e) {
            return leftInPlace(e.getMessage());
        }
    }

    private RunLockFate leftInPlace(String why) {
        String detail = "could not be removed (" + why + "): the next run on this host, in the same pid namespace,"
                + " takes it over; from another host or container, run with --break-lock " + lockId;
        progress.accept("WARNING: the run lock " + lockId + " " + detail);
        return new RunLockFate(lockId.toString(), RunLockFate.Fate.LEFT_IN_PLACE, detail);
    }

    /** {@link #release}, its fate told as a warning only (where it was left). */
    @Override
    public void close() {
        release();
    }
}
