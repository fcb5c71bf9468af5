package dev.rdmafutures.samples.kv;

/**
 * What the clients of one service know about its keys: for each, the newest version a PUT was acknowledged with and
 * that PUT's seed (at first the preloaded version 1). A GET must return at least the version acknowledged before it
 * started, and exactly the acknowledged value when it returns that version; once {@link #quiesce() quiescent} (no
 * PUT outstanding), exactly the last acknowledged one. Thread-safe.
 */
final class Expectations {
    private final long[] versions;
    private final long[] seeds;
    private boolean quiescent;

    Expectations(int keys) {
        versions = new long[keys];
        seeds = new long[keys];
        for (int key = 0; key < keys; key++) {
            versions[key] = 1;
            seeds[key] = ValueContent.initialSeed(key);
        }
    }

    int keys() {
        return versions.length;
    }

    /** The newest acknowledged version of {@code key}: a GET starting now must see it or a newer one. */
    synchronized long acknowledgedVersion(long key) {
        return versions[(int) key];
    }

    /** A PUT was acknowledged; returns what is wrong with that, or null. */
    synchronized String acknowledged(long key, long version, long seed) {
        int k = (int) key;
        if (version == versions[k] && seed != seeds[k]) {
            return "two PUTs of key " + key + " were both acknowledged as version " + version;
        }
        if (version > versions[k]) {
            versions[k] = version;
            seeds[k] = seed;
        }
        return null;
    }

    /** A GET that started when {@code minVersion} was acknowledged returned a value; what is wrong with it, or null. */
    synchronized String checkGet(long key, long version, long seed, long minVersion) {
        int k = (int) key;
        if (version < minVersion) {
            return "GET of key " + key + " returned version " + version + " after version " + minVersion
                    + " was acknowledged";
        }
        if (version == versions[k] && seed != seeds[k]) {
            return "GET of key " + key + " returned version " + version + " with seed " + seed
                    + ", not the acknowledged PUT's " + seeds[k];
        }
        if (quiescent && version != versions[k]) {
            return "GET of key " + key + " returned version " + version + " but the last acknowledged PUT made "
                    + versions[k];
        }
        return null;
    }

    /** No PUT is outstanding from now on: GETs must return exactly the last acknowledged value. */
    synchronized void quiesce() {
        quiescent = true;
    }
}
