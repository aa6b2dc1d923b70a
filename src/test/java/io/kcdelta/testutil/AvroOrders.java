package io.kcdelta.testutil;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.Conversions;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;

/**
 * Test orders as an Avro producer would write them: one record schema with every Avro shape an Avro
 * converter maps (optional and multi-branch unions, enum, decimal, logical dates and times, named
 * records referenced twice, arrays of records, maps, fixed), and its next version, which adds a
 * field with a default.
 */
public final class AvroOrders {
  private AvroOrders() {}

  public static final String V1 =
      """
      {"type":"record","name":"Order","namespace":"shop.v1","fields":[
        {"name":"id","type":"long"},
        {"name":"note","type":["null","string"],"default":null},
        {"name":"choice","type":["null","int","string"],"default":null},
        {"name":"status","type":{"type":"enum","name":"Status","symbols":["NEW","PAID","SHIPPED"]}},
        {"name":"amount","type":{"type":"bytes","logicalType":"decimal","precision":10,"scale":2}},
        {"name":"qty","type":"int","default":1},
        {"name":"placed","type":{"type":"long","logicalType":"timestamp-millis"}},
        {"name":"day","type":{"type":"int","logicalType":"date"}},
        {"name":"ship_to","type":{"type":"record","name":"Address","namespace":"shop.common",
          "fields":[{"name":"city","type":"string"},{"name":"zip","type":["null","string"],"default":null}]}},
        {"name":"bill_to","type":["null","shop.common.Address"],"default":null},
        {"name":"lines","type":{"type":"array","items":{"type":"record","name":"Line",
          "fields":[{"name":"sku","type":"string"},{"name":"n","type":"int"}]}}},
        {"name":"attrs","type":{"type":"map","values":"string"}},
        {"name":"digest","type":{"type":"fixed","name":"Md5","size":4}}
      ]}""";

  /** V1 and a field that the next version of the producer added, with a default. */
  public static final String V2 =
      V1.replace("shop.v1", "shop.v2")
          .replace(
              "{\"name\":\"id\",\"type\":\"long\"},",
              "{\"name\":\"id\",\"type\":\"long\"},"
                  + "{\"name\":\"channel\",\"type\":[\"null\",\"string\"],\"default\":null},");

  public static final Schema SCHEMA_V1 = new Schema.Parser().parse(V1);
  public static final Schema SCHEMA_V2 = new Schema.Parser().parse(V2);

  /** Order {@code id} in {@code schema} (V1 or V2); V2's new field says "web". */
  public static GenericRecord order(Schema schema, long id) {
    GenericRecord r = new GenericData.Record(schema);
    r.put("id", id);
    r.put("note", id % 2 == 0 ? null : "note " + id);
    r.put("choice", id % 3 == 0 ? null : id % 3 == 1 ? (Object) (int) id : "s" + id);
    r.put(
        "status",
        new GenericData.EnumSymbol(
            schema.getField("status").schema(), id % 2 == 0 ? "NEW" : "PAID"));
    Schema amount = schema.getField("amount").schema();
    r.put(
        "amount",
        new Conversions.DecimalConversion()
            .toBytes(BigDecimal.valueOf(id * 101, 2), amount, LogicalTypes.decimal(10, 2)));
    r.put("qty", (int) (id % 7));
    r.put("placed", 1_796_379_330_123L + id);
    r.put("day", 20_791 + (int) (id % 3));
    Schema address = schema.getField("ship_to").schema();
    GenericRecord shipTo = new GenericData.Record(address);
    shipTo.put("city", "city-" + id);
    shipTo.put("zip", id % 4 == 0 ? null : "z" + id);
    r.put("ship_to", shipTo);
    r.put("bill_to", id % 5 == 0 ? shipTo : null);
    Schema line = schema.getField("lines").schema().getElementType();
    List<GenericRecord> lines = new ArrayList<>();
    for (int i = 0; i < id % 3; i++) {
      GenericRecord l = new GenericData.Record(line);
      l.put("sku", "sku-" + i);
      l.put("n", i + 1);
      lines.add(l);
    }
    r.put("lines", lines);
    r.put("attrs", Map.of("k", "v" + id));
    r.put(
        "digest",
        new GenericData.Fixed(schema.getField("digest").schema(), new byte[] {1, 2, 3, (byte) id}));
    if (schema.getField("channel") != null) {
      r.put("channel", "web");
    }
    return r;
  }
}
