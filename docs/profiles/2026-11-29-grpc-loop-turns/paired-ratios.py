# paired-ratios.py DIR: for each jar k of ab.sh, soft/NIO per round (unary mean, stream rate) and their medians.
import glob, json, statistics, sys

d = sys.argv[1]
for k in sorted({f.split('-')[-2] for f in glob.glob(f'{d}/ab-*-*.json')}):
    unary, stream = [], []
    for f in sorted(glob.glob(f'{d}/ab-{k}-*.json')):
        t = {x['transport']: x for x in json.load(open(f))['transports']}
        r, n = t['rdma-soft'], t['nio']
        u = [a / b for a, b in zip(r['unary']['roundsMeanMicros'], n['unary']['roundsMeanMicros'])]
        s = [a / b for a, b in zip(r['stream']['roundsMessagesPerSecond'], n['stream']['roundsMessagesPerSecond'])]
        unary += u
        stream += s
        print(k, f, 'unary', ' '.join(f'{x:.2f}' for x in u), '| stream', ' '.join(f'{x:.2f}' for x in s))
    print(k, 'median unary %.3f stream %.3f (%d rounds)' % (statistics.median(unary), statistics.median(stream),
                                                          len(unary)))
