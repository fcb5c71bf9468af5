package dev.rdmafutures.soft;

import java.nio.ByteBuffer;
import java.util.IdentityHashMap;

/**
 * One reusable view per region that a connection places inbound payload into: a payload scattered over a few
 * regions repositions their views instead of duplicating a buffer per segment, so a steady data path allocates
 * nothing. Bounded, since regions come and go. Poller thread only.
 */
final class RegionViews {
    /** Regions whose view is kept: several operations' worth of {@link SoftDevice#MAX_SGE} regions each. */
    private static final int MAX_REGIONS = 4 * SoftDevice.MAX_SGE;

    private final IdentityHashMap<SoftRegion, ByteBuffer> views = new IdentityHashMap<>();

    /** {@code length} bytes of {@code region} from {@code offset}, as this connection's view of it. */
    ByteBuffer of(SoftRegion region, int offset, int length) {
        ByteBuffer view = views.get(region);
        if (view == null) {
            if (views.size() >= MAX_REGIONS) {
                views.clear(); // forget the old regions' views
            }
            view = region.bytes();
            views.put(region, view);
        }
        return view.clear().position(offset).limit(offset + length);
    }
}
