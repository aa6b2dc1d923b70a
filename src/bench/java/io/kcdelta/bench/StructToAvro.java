package io.kcdelta.bench;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import org.apache.avro.LogicalTypes;
import org.apache.avro.SchemaBuilder;
import org.apache.avro.generic.GenericData;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;

/**
 * Connect Struct → Avro GenericRecord the way the Confluent S3 sink's Parquet format does it
 * (through its AvroData): schemas translated once and cached, then a new GenericData.Record per
 * Struct with every value converted: optional fields as ["null", T] unions, Decimal as bytes with
 * the decimal logical type (unscaled two's complement), Timestamp as long millis, Date as int days,
 * nested structs as records, arrays as lists. Written for the benchmark (Confluent's converter is
 * not available here).
 */
final class StructToAvro {
  private final Map<Schema, org.apache.avro.Schema> cache = new IdentityHashMap<>();
  private int names;

  org.apache.avro.Schema avroSchema(Schema connect) {
    org.apache.avro.Schema s = cache.get(connect);
    if (s == null) {
      s = toAvro(connect, true);
      cache.put(connect, s);
    }
    return s;
  }

  private org.apache.avro.Schema toAvro(Schema c, boolean top) {
    org.apache.avro.Schema base = nonNull(c, top);
    if (c.isOptional() && !top) {
      return org.apache.avro.Schema.createUnion(
          org.apache.avro.Schema.create(org.apache.avro.Schema.Type.NULL), base);
    }
    return base;
  }

  private org.apache.avro.Schema nonNull(Schema c, boolean top) {
    if (Decimal.LOGICAL_NAME.equals(c.name())) {
      int scale = Integer.parseInt(c.parameters().get(Decimal.SCALE_FIELD));
      String p = c.parameters().get("connect.decimal.precision");
      int precision = p == null ? 64 : Integer.parseInt(p);
      return LogicalTypes.decimal(precision, scale)
          .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES));
    }
    if (Timestamp.LOGICAL_NAME.equals(c.name())) {
      return LogicalTypes.timestampMillis()
          .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG));
    }
    if (Date.LOGICAL_NAME.equals(c.name())) {
      return LogicalTypes.date()
          .addToSchema(org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT));
    }
    switch (c.type()) {
      case INT8:
      case INT16:
      case INT32:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.INT);
      case INT64:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.LONG);
      case FLOAT32:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.FLOAT);
      case FLOAT64:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.DOUBLE);
      case BOOLEAN:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BOOLEAN);
      case STRING:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.STRING);
      case BYTES:
        return org.apache.avro.Schema.create(org.apache.avro.Schema.Type.BYTES);
      case ARRAY:
        return org.apache.avro.Schema.createArray(toAvro(c.valueSchema(), false));
      case MAP:
        return org.apache.avro.Schema.createMap(toAvro(c.valueSchema(), false));
      case STRUCT:
        {
          String name =
              c.name() != null ? c.name() : top ? "ConnectDefault" : "ConnectDefault" + (++names);
          SchemaBuilder.FieldAssembler<org.apache.avro.Schema> fields =
              SchemaBuilder.record(name).fields();
          for (Field f : c.fields()) {
            org.apache.avro.Schema fs = toAvro(f.schema(), false);
            if (f.schema().isOptional()) {
              fields = fields.name(f.name()).type(fs).withDefault(null);
            } else {
              fields = fields.name(f.name()).type(fs).noDefault();
            }
          }
          return fields.endRecord();
        }
      default:
        throw new IllegalArgumentException("unsupported " + c.type());
    }
  }

  GenericData.Record toRecord(Struct struct) {
    return record(struct, avroSchema(struct.schema()));
  }

  private GenericData.Record record(Struct struct, org.apache.avro.Schema avro) {
    GenericData.Record r = new GenericData.Record(avro);
    for (Field f : struct.schema().fields()) {
      org.apache.avro.Schema fs = avro.getField(f.name()).schema();
      r.put(f.name(), value(struct.get(f), f.schema(), fs));
    }
    return r;
  }

  private Object value(Object v, Schema c, org.apache.avro.Schema avro) {
    if (v == null) {
      return null;
    }
    if (avro.getType() == org.apache.avro.Schema.Type.UNION) {
      avro = avro.getTypes().get(1);
    }
    if (Decimal.LOGICAL_NAME.equals(c.name())) {
      return ByteBuffer.wrap(((java.math.BigDecimal) v).unscaledValue().toByteArray());
    }
    if (Timestamp.LOGICAL_NAME.equals(c.name())) {
      return ((java.util.Date) v).getTime();
    }
    if (Date.LOGICAL_NAME.equals(c.name())) {
      return (int) (((java.util.Date) v).getTime() / 86_400_000L);
    }
    switch (c.type()) {
      case INT8:
        return ((Byte) v).intValue();
      case INT16:
        return ((Short) v).intValue();
      case BYTES:
        return v instanceof byte[] ? ByteBuffer.wrap((byte[]) v) : v;
      case STRUCT:
        return record((Struct) v, avro);
      case ARRAY:
        {
          List<?> in = (List<?>) v;
          List<Object> out = new ArrayList<>(in.size());
          for (Object e : in) {
            out.add(value(e, c.valueSchema(), avro.getElementType()));
          }
          return out;
        }
      case MAP:
        {
          Map<?, ?> in = (Map<?, ?>) v;
          Map<Object, Object> out = new HashMap<>();
          org.apache.avro.Schema valueType = avro.getValueType();
          in.forEach((k, e) -> out.put(k, value(e, c.valueSchema(), valueType)));
          return out;
        }
      default:
        return v;
    }
  }
}
