// GenFixtures writes test fixtures for the rocketmq package using the real
// RocketMQ 5.3.3 Java libraries as the oracle: stored message records and
// what MessageDecoder makes of them, offsetMsgIds and unique keys with
// Java's decoding, fastjson bodies from the real body classes, and the
// allocation strategies' results. Regenerate with ./gen.sh; the Go tests
// only read the files it writes.
import com.alibaba.fastjson.JSON;
import com.alibaba.fastjson.JSONArray;
import com.alibaba.fastjson.JSONObject;
import com.alibaba.fastjson.serializer.SerializerFeature;
import java.io.ByteArrayOutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.*;
import java.util.zip.CRC32;
import org.apache.rocketmq.common.UtilAll;
import org.apache.rocketmq.client.consumer.AllocateMessageQueueStrategy;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragelyByCircle;
import org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueConsistentHash;
import org.apache.rocketmq.common.compression.CompressionType;
import org.apache.rocketmq.common.compression.CompressorFactory;
import org.apache.rocketmq.common.message.*;
import org.apache.rocketmq.common.sysflag.MessageSysFlag;
import org.apache.rocketmq.remoting.protocol.admin.ConsumeStats;
import org.apache.rocketmq.remoting.protocol.admin.OffsetWrapper;
import org.apache.rocketmq.remoting.protocol.admin.TopicOffset;
import org.apache.rocketmq.remoting.protocol.admin.TopicStatsTable;
import org.apache.rocketmq.remoting.protocol.body.ClusterInfo;
import org.apache.rocketmq.remoting.protocol.body.ConsumerRunningInfo;
import org.apache.rocketmq.remoting.protocol.body.ProcessQueueInfo;
import org.apache.rocketmq.remoting.protocol.body.ResetOffsetBody;
import org.apache.rocketmq.remoting.protocol.route.BrokerData;

public class GenFixtures {
    static Path out;

    public static void main(String[] args) throws Exception {
        out = Path.of(args[0]);
        Files.createDirectories(out.resolve("java"));
        messages();
        ids();
        fastjsonBodies();
        allocation();
    }

    // ---- stored message records ------------------------------------------

    static final int V1 = 0xDAA320A7, V2 = 0xDAA320AB;

    /** A record description; written by rec() in the stored layout. */
    static class Rec {
        int magic = V1, queueId = 3, flag = 7, sysFlag = 0, reconsume = 0;
        long queueOffset = 42, phys = 123456789L, bornTs = 1700000000123L, storeTs = 1700000000456L, prepared = 0;
        byte[] bornIp = {10, 0, 0, 5}, storeIp = {(byte) 192, (byte) 168, 1, 20};
        int bornPort = 51234, storePort = 10911;
        String topic = "TopicTest";
        byte[] body = "hello".getBytes(StandardCharsets.UTF_8);
        String props = "KEYS\u0001order-1 order-2\u0002TAGS\u0001TagA\u0002UNIQ_KEY\u00017F00000100002A9F0000000000000001\u0002";
    }

    static byte[] rec(Rec r) {
        byte[] topic = r.topic.getBytes(StandardCharsets.UTF_8);
        byte[] props = r.props.getBytes(StandardCharsets.UTF_8);
        int size = 4 + 4 + 4 + 4 + 4 + 8 + 8 + 4 + 8 + (r.bornIp.length + 4) + 8 + (r.storeIp.length + 4) + 4 + 8
            + 4 + r.body.length + (r.magic == V1 ? 1 : 2) + topic.length + 2 + props.length;
        ByteBuffer b = ByteBuffer.allocate(size);
        CRC32 crc = new CRC32();
        crc.update(r.body);
        b.putInt(size).putInt(r.magic).putInt((int) crc.getValue()).putInt(r.queueId).putInt(r.flag)
            .putLong(r.queueOffset).putLong(r.phys).putInt(r.sysFlag).putLong(r.bornTs)
            .put(r.bornIp).putInt(r.bornPort).putLong(r.storeTs).put(r.storeIp).putInt(r.storePort)
            .putInt(r.reconsume).putLong(r.prepared).putInt(r.body.length).put(r.body);
        if (r.magic == V1) b.put((byte) topic.length); else b.putShort((short) topic.length);
        b.put(topic).putShort((short) props.length).put(props);
        return b.array();
    }

    static byte[] concat(byte[]... parts) throws Exception {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) o.write(p);
        return o.toByteArray();
    }

    static byte[] big(int n) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; sb.length() < n; i++) sb.append("{\"seq\":").append(i).append(",\"payload\":\"abcabcabc\"}\n");
        return sb.substring(0, n).getBytes(StandardCharsets.UTF_8);
    }

    static void messages() throws Exception {
        Map<String, byte[]> cases = new LinkedHashMap<>();

        Rec plain = new Rec();
        cases.put("v1_ipv4_plain", rec(plain));

        Rec v6 = new Rec();
        v6.sysFlag = MessageSysFlag.BORNHOST_V6_FLAG | MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
        v6.bornIp = InetAddress.getByName("2001:db8::5").getAddress();
        v6.storeIp = InetAddress.getByName("fd00::20").getAddress();
        cases.put("v1_ipv6_both", rec(v6));

        Rec v6store = new Rec();
        v6store.sysFlag = MessageSysFlag.STOREHOSTADDRESS_V6_FLAG;
        v6store.storeIp = InetAddress.getByName("::ffff:10.1.2.3").getAddress();
        if (v6store.storeIp.length == 4) { // Java collapses mapped addresses; keep 16 bytes
            byte[] m = new byte[16]; m[10] = (byte) 0xff; m[11] = (byte) 0xff;
            System.arraycopy(v6store.storeIp, 0, m, 12, 4); v6store.storeIp = m;
        }
        cases.put("v1_ipv6_store_only_mapped", rec(v6store));

        Rec v2 = new Rec();
        v2.magic = V2;
        v2.topic = "T".repeat(200) + "-长主题";
        v2.props = "TAGS\u0001标签\u0002";
        cases.put("v2_long_topic", rec(v2));

        Rec v2v6 = new Rec();
        v2v6.magic = V2;
        v2v6.sysFlag = MessageSysFlag.BORNHOST_V6_FLAG;
        v2v6.bornIp = InetAddress.getByName("2001:db8:1:2:3:4:5:6").getAddress();
        cases.put("v2_ipv6_born", rec(v2v6));

        // Java's own encoder for the zlib case (V1, COMPRESSED_FLAG only).
        MessageExt ext = new MessageExt();
        ext.setTopic("ZlibTopic");
        ext.setBody(big(6000));
        ext.setQueueId(1);
        ext.setFlag(0);
        ext.setQueueOffset(9);
        ext.setCommitLogOffset(4096);
        ext.setSysFlag(MessageSysFlag.COMPRESSED_FLAG);
        ext.setBornTimestamp(1700000001000L);
        ext.setStoreTimestamp(1700000001500L);
        ext.setBornHost(new InetSocketAddress(InetAddress.getByName("10.9.8.7"), 40000));
        ext.setStoreHost(new InetSocketAddress(InetAddress.getByName("10.9.8.1"), 10911));
        ext.putUserProperty("biz", "v=1");
        MessageAccessor.putProperty(ext, MessageConst.PROPERTY_TAGS, "Z");
        cases.put("javaenc_zlib", MessageDecoder.encode(ext, true));

        for (CompressionType ct : new CompressionType[]{CompressionType.ZLIB, CompressionType.LZ4, CompressionType.ZSTD}) {
            Rec c = new Rec();
            byte[] raw = big(9000);
            c.body = CompressorFactory.getCompressor(ct).compress(raw, 5);
            c.sysFlag = MessageSysFlag.COMPRESSED_FLAG | ct.getCompressionFlag();
            c.props = "TAGS\u0001" + ct.name() + "\u0002";
            cases.put("compressed_" + ct.name().toLowerCase(), rec(c));
        }

        // Properties edge cases as Java's string2messageProperties sees them.
        Rec pe = new Rec();
        pe.props = "a\u00011\u0002\u0001novalue-key\u0002nokey\u0001\u0002x\u0002\u0002b\u0001two\u0001parts\u0002a\u0001dup\u0002c\u0001tail";
        cases.put("properties_edges", rec(pe));

        Rec empty = new Rec();
        empty.body = new byte[0];
        empty.props = "";
        empty.topic = "E";
        cases.put("empty_body_no_props", rec(empty));

        // Inner batch: the body holds sub-messages; the outer body here is
        // also zlib-compressed, as a 5.x producer may send it.
        List<Message> subs = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            Message m = new Message("BatchTopic", "Tag" + i, "key-" + i, ("sub-body-" + i).getBytes(StandardCharsets.UTF_8));
            m.setFlag(i);
            MessageAccessor.putProperty(m, MessageConst.PROPERTY_UNIQ_CLIENT_MESSAGE_ID_KEYIDX, String.format("0A00000500010000000000000000000%d", i));
            subs.add(m);
        }
        byte[] inner = MessageDecoder.encodeMessages(subs);
        Rec batch = new Rec();
        batch.topic = "BatchTopic";
        batch.queueOffset = 100;
        batch.sysFlag = MessageSysFlag.INNER_BATCH_FLAG | MessageSysFlag.NEED_UNWRAP_FLAG;
        batch.body = inner;
        batch.props = "INNER_NUM\u00013\u0002";
        cases.put("inner_batch", rec(batch));
        Rec batchZ = new Rec();
        batchZ.topic = "BatchTopic";
        batchZ.queueOffset = 200;
        batchZ.sysFlag = MessageSysFlag.INNER_BATCH_FLAG | MessageSysFlag.NEED_UNWRAP_FLAG | MessageSysFlag.COMPRESSED_FLAG | CompressionType.ZSTD.getCompressionFlag();
        batchZ.body = CompressorFactory.getCompressor(CompressionType.ZSTD).compress(inner, 3);
        batchZ.props = "INNER_NUM\u00013\u0002";
        cases.put("inner_batch_zstd", rec(batchZ));
        // Only INNER_BATCH without NEED_UNWRAP: a 5.x record the client
        // does not unwrap (the broker already split it).
        Rec batchNo = new Rec();
        batchNo.sysFlag = MessageSysFlag.INNER_BATCH_FLAG;
        cases.put("inner_batch_flag_only", rec(batchNo));

        // A pull body: several records back to back.
        Rec p1 = new Rec(); p1.queueOffset = 1; p1.phys = 1000;
        Rec p2 = new Rec(); p2.queueOffset = 2; p2.phys = 1200; p2.magic = V2;
        Rec p3 = new Rec(); p3.queueOffset = 3; p3.phys = 1400; p3.body = CompressorFactory.getCompressor(CompressionType.LZ4).compress(big(5000), 5);
        p3.sysFlag = MessageSysFlag.COMPRESSED_FLAG | CompressionType.LZ4.getCompressionFlag();
        cases.put("pull_body_three", concat(rec(p1), rec(p2), rec(p3)));

        JSONObject expected = new JSONObject(true);
        for (Map.Entry<String, byte[]> e : cases.entrySet()) {
            Files.write(out.resolve("java/msg_" + e.getKey() + ".bin"), e.getValue());
            expected.put(e.getKey(), describe(javaDecode(e.getValue())));
        }
        write("java/messages.json", expected);
    }

    /** Decodes as the Java client does after a pull (PullAPIWrapper). */
    static List<MessageExt> javaDecode(byte[] body) throws Exception {
        List<MessageExt> list = MessageDecoder.decodesBatch(ByteBuffer.wrap(body), true, true, true);
        List<MessageExt> outList = new ArrayList<>();
        for (MessageExt m : list) {
            if (MessageSysFlag.check(m.getSysFlag(), MessageSysFlag.INNER_BATCH_FLAG)
                && MessageSysFlag.check(m.getSysFlag(), MessageSysFlag.NEED_UNWRAP_FLAG)) {
                MessageDecoder.decodeMessage(m, outList);
            } else {
                outList.add(m);
            }
        }
        return outList;
    }

    static JSONArray describe(List<MessageExt> msgs) {
        JSONArray arr = new JSONArray();
        for (MessageExt m : msgs) {
            JSONObject o = new JSONObject(true);
            o.put("topic", m.getTopic());
            o.put("flag", m.getFlag());
            o.put("queueId", m.getQueueId());
            o.put("queueOffset", m.getQueueOffset());
            o.put("commitLogOffset", m.getCommitLogOffset());
            o.put("sysFlag", m.getSysFlag());
            o.put("bornTimestamp", m.getBornTimestamp());
            o.put("storeTimestamp", m.getStoreTimestamp());
            o.put("bornHost", hostString((InetSocketAddress) m.getBornHost()));
            o.put("storeHost", hostString((InetSocketAddress) m.getStoreHost()));
            o.put("reconsumeTimes", m.getReconsumeTimes());
            o.put("preparedTransactionOffset", m.getPreparedTransactionOffset());
            o.put("bodyCRC", m.getBodyCRC() & 0xFFFFFFFFL);
            o.put("storeSize", m.getStoreSize());
            o.put("properties", m.getProperties() == null ? new TreeMap<>() : new TreeMap<>(m.getProperties()));
            o.put("body", m.getBody() == null ? "" : Base64.getEncoder().encodeToString(m.getBody()));
            String offsetMsgId = m instanceof MessageClientExt ? ((MessageClientExt) m).getOffsetMsgId() : null;
            o.put("offsetMsgId", offsetMsgId);
            arr.add(o);
        }
        return arr;
    }

    /** ip:port with the address bytes as Java holds them (v4 or v6). */
    static String hostString(InetSocketAddress a) {
        if (a == null) return null;
        byte[] ip = a.getAddress().getAddress();
        StringBuilder sb = new StringBuilder();
        for (byte x : ip) sb.append(String.format("%02x", x));
        return sb + "/" + a.getPort();
    }

    // ---- ids --------------------------------------------------------------

    static void ids() throws Exception {
        JSONObject o = new JSONObject(true);
        JSONArray offsetIds = new JSONArray();
        Object[][] hosts = {
            {"10.0.0.1", 10911, 1000000L}, {"192.168.255.254", 65535, 0L}, {"127.0.0.1", 1, Long.MAX_VALUE},
            {"2001:db8::1", 10911, 123456789012345L}, {"fe80::1:2:3:4", 30911, 7L},
        };
        for (Object[] h : hosts) {
            InetSocketAddress a = new InetSocketAddress(InetAddress.getByName((String) h[0]), (Integer) h[1]);
            String id = MessageDecoder.createMessageId(a, (Long) h[2]);
            MessageId back = MessageDecoder.decodeMessageId(id);
            JSONObject e = new JSONObject(true);
            e.put("id", id);
            e.put("host", hostString((InetSocketAddress) back.getAddress()));
            e.put("offset", back.getOffset());
            offsetIds.add(e);
        }
        o.put("offsetMsgIds", offsetIds);

        // Unique keys: real ones from this JVM, plus crafted ones (IPv6,
        // span beyond 2^31 ms, month edge), each decoded the Java way.
        JSONArray uniq = new JSONArray();
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 3; i++) keys.add(MessageClientIDSetter.createUniqID());
        keys.add("0A0000050C38ABCDEF0100000001002A");               // 10.0.0.5, pid 3128, span 16777217 ms
        keys.add("20010DB80000000000000000000000050C3812345678A0000000FFFF"); // IPv6, span > 2^31
        keys.add("C0A80001FFFF0000000000000000FFFF");               // span 0
        keys.add("7F000001" + "1F40" + "00000000" + "0007a120" + "0005"); // Go style: lower-case time
        long now = System.currentTimeMillis();
        for (String k : keys) {
            JSONObject e = new JSONObject(true);
            e.put("id", k);
            e.put("ip", UtilAll.bytes2string(MessageClientIDSetter.getIPFromID(k)));
            e.put("pid", MessageClientIDSetter.getPidFromID(k));
            e.put("nearlyTime", MessageClientIDSetter.getNearlyTimeFromID(k));
            uniq.add(e);
        }
        o.put("uniqueKeys", uniq);
        o.put("decodedAtMillis", now);
        o.put("timezone", TimeZone.getDefault().getID());
        write("java/ids.json", o);
    }

    // ---- fastjson bodies ----------------------------------------------------

    static MessageQueue mq(String t, String b, int q) { return new MessageQueue(t, b, q); }

    static void fastjsonBodies() throws Exception {
        JSONObject expected = new JSONObject(true);

        ConsumeStats cs = new ConsumeStats();
        Map<MessageQueue, OffsetWrapper> table = new HashMap<>();
        String[][] names = {{"TopicTest", "broker-a"}, {"TopicTest", "broker-b"}, {"%RETRY%grp", "broker-a"},
            {"we:ird}{\"topic", "br,{oker}:"}, {"中文", "b"}};
        long v = 1;
        for (String[] n : names) {
            for (int q = 0; q < 2; q++) {
                OffsetWrapper w = new OffsetWrapper();
                w.setBrokerOffset(100 * v + q);
                w.setConsumerOffset(90 * v + q);
                w.setPullOffset(95 * v + q);
                w.setLastTimestamp(1700000000000L + v);
                table.put(mq(n[0], n[1], q), w);
                v++;
            }
        }
        cs.setOffsetTable(table);
        cs.setConsumeTps(Double.NaN);
        fastjsonCase(expected, "consume_stats", cs.toJson(), mqTable(table));

        TopicStatsTable ts = new TopicStatsTable();
        Map<MessageQueue, TopicOffset> tt = new HashMap<>();
        for (int q = 0; q < 4; q++) {
            TopicOffset t = new TopicOffset();
            t.setMinOffset(q);
            t.setMaxOffset(1000 + q);
            t.setLastUpdateTimestamp(1700000000000L + q);
            tt.put(mq("TopicTest", "broker-a", q), t);
        }
        ts.setOffsetTable(tt);
        fastjsonCase(expected, "topic_stats", ts.toJson(), mqTable(tt));

        ClusterInfo ci = new ClusterInfo();
        Map<String, BrokerData> bat = new HashMap<>();
        HashMap<Long, String> addrs = new HashMap<>();
        addrs.put(0L, "10.0.0.1:10911");
        addrs.put(1L, "10.0.0.2:10911");
        addrs.put(2L, "[2001:db8::1]:10911");
        bat.put("broker-a", new BrokerData("DefaultCluster", "broker-a", addrs));
        ci.setBrokerAddrTable(bat);
        Map<String, Set<String>> cat = new HashMap<>();
        cat.put("DefaultCluster", new HashSet<>(List.of("broker-a")));
        ci.setClusterAddrTable(cat);
        JSONObject addrExpect = new JSONObject(true);
        for (Map.Entry<Long, String> e : addrs.entrySet()) addrExpect.put(String.valueOf(e.getKey()), e.getValue());
        fastjsonCase(expected, "cluster_info", ci.toJson(), addrExpect);

        ConsumerRunningInfo cri = new ConsumerRunningInfo();
        TreeMap<MessageQueue, ProcessQueueInfo> mqt = new TreeMap<>();
        for (int q = 0; q < 3; q++) {
            ProcessQueueInfo p = new ProcessQueueInfo();
            p.setCommitOffset(240 + q);
            p.setLastConsumeTimestamp(1700000000000L);
            mqt.put(mq("TopicTest", "broker-a", q), p);
        }
        cri.setMqTable(mqt);
        Properties props = new Properties();
        props.setProperty("consumerGroup", "grp");
        props.setProperty("allocateMessageQueueStrategy", "org.apache.rocketmq.client.consumer.rebalance.AllocateMessageQueueAveragely@1b2c3d");
        cri.setProperties(props);
        cri.setJstack("\"main\" #1 prio=5\n\tat x.y(Z.java:1)\n'quoted'\t\u0001");
        fastjsonCase(expected, "consumer_running_info", cri.toJson(), mqTable(mqt));

        ResetOffsetBody rob = new ResetOffsetBody();
        Map<MessageQueue, Long> rt = new HashMap<>();
        rt.put(mq("TopicTest", "broker-a", 0), 10L);
        rt.put(mq("TopicTest", "broker-a", 1), 20L);
        rob.setOffsetTable(rt);
        fastjsonCase(expected, "reset_offset", rob.toJson(), mqTable(rt));

        // Pretty-printed fastjson, to check whitespace around object keys.
        fastjsonCase(expected, "consume_stats_pretty", JSON.toJSONString(cs, SerializerFeature.PrettyFormat), mqTable(table));

        // Single quotes, as fastjson writes with UseSingleQuotes.
        fastjsonCase(expected, "single_quotes", JSON.toJSONString(rob, SerializerFeature.UseSingleQuotes), mqTable(rt));

        write("java/fastjson.json", expected);
    }

    /** The table as a list of {key: mq, value: v}, in strict JSON. */
    static JSONArray mqTable(Map<MessageQueue, ?> m) {
        JSONArray a = new JSONArray();
        for (Map.Entry<MessageQueue, ?> e : m.entrySet()) {
            JSONObject k = new JSONObject(true);
            k.put("topic", e.getKey().getTopic());
            k.put("brokerName", e.getKey().getBrokerName());
            k.put("queueId", e.getKey().getQueueId());
            JSONObject o = new JSONObject(true);
            o.put("key", k);
            o.put("value", JSON.parse(JSON.toJSONString(e.getValue())));
            a.add(o);
        }
        return a;
    }

    static void fastjsonCase(JSONObject expected, String name, String body, Object table) throws Exception {
        Files.writeString(out.resolve("java/fastjson_" + name + ".txt"), body);
        expected.put(name, table);
    }

    // ---- allocation ----------------------------------------------------------

    static void allocation() throws Exception {
        JSONArray cases = new JSONArray();
        Random rnd = new Random(20240601);
        String[] brokers = {"broker-a", "broker-b", "broker-10", "broker-9", "Broker-A", "\uFF21broker", "\uD83D\uDE00broker"};
        int[][] shapes = {{8, 3}, {3, 5}, {4, 4}, {1, 1}, {16, 3}, {7, 2}, {10, 4}, {5, 7}, {32, 5}, {24, 10}, {2, 1}, {12, 12}};
        for (int[] s : shapes) {
            List<MessageQueue> mqs = new ArrayList<>();
            for (int i = 0; i < s[0]; i++) {
                mqs.add(mq(i % 5 == 4 ? "%RETRY%grp" : "TopicTest", brokers[rnd.nextInt(brokers.length)], rnd.nextInt(16)));
            }
            mqs = new ArrayList<>(new LinkedHashSet<>(mqs));
            List<String> cids = new ArrayList<>();
            for (int i = 0; i < s[1]; i++) cids.add("10.0.0." + (rnd.nextInt(200) + 1) + "@" + (1000 + rnd.nextInt(90000)) + "#" + Math.abs(rnd.nextLong()));
            cids = new ArrayList<>(new LinkedHashSet<>(cids));
            List<MessageQueue> sortedMq = new ArrayList<>(mqs);
            Collections.sort(sortedMq);
            List<String> sortedCid = new ArrayList<>(cids);
            Collections.sort(sortedCid);
            Collections.shuffle(mqs, rnd);
            Collections.shuffle(cids, rnd);

            JSONObject c = new JSONObject(true);
            c.put("queues", qlist(mqs));
            c.put("clients", cids);
            c.put("sortedQueues", qlist(sortedMq));
            AllocateMessageQueueStrategy[] strategies = {
                new AllocateMessageQueueAveragely(), new AllocateMessageQueueAveragelyByCircle(), new AllocateMessageQueueConsistentHash()};
            JSONObject results = new JSONObject(true);
            for (AllocateMessageQueueStrategy st : strategies) {
                JSONObject per = new JSONObject(true);
                for (String cid : sortedCid) per.put(cid, qlist(st.allocate("grp", cid, sortedMq, sortedCid)));
                results.put(st.getName(), per);
            }
            c.put("results", results);
            cases.add(c);
        }
        write("java/allocation.json", cases);
    }

    static JSONArray qlist(List<MessageQueue> l) {
        JSONArray a = new JSONArray();
        for (MessageQueue m : l) {
            JSONObject k = new JSONObject(true);
            k.put("topic", m.getTopic());
            k.put("brokerName", m.getBrokerName());
            k.put("queueId", m.getQueueId());
            a.add(k);
        }
        return a;
    }

    static void write(String name, Object o) throws Exception {
        Files.writeString(out.resolve(name), JSON.toJSONString(o, SerializerFeature.PrettyFormat, SerializerFeature.DisableCircularReferenceDetect) + "\n");
    }
}
