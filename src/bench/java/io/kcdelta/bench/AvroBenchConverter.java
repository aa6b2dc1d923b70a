package io.kcdelta.bench;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryDecoder;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.Date;
import org.apache.kafka.connect.data.Decimal;
import org.apache.kafka.connect.data.Field;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.storage.Converter;

/**
 * A converter that costs what an Avro converter costs, without a schema registry: values are Avro
 * binary of one fixed writer schema (the bench record's, translated by {@link StructToAvro}),
 * decoded into a GenericRecord and mapped onto Connect Structs field by field, walking the Connect
 * schema as the registry converters' AvroData does. It maps the types the bench record has: strings
 * from Utf8, decimals from unscaled bytes, timestamps and dates from longs and ints, nested
 * records, lists; every value checked by {@link Struct#put}. What it leaves out is the registry's
 * part: the 5-byte header and the cached schema lookup by id.
 *
 * <p>Why it exists: JsonConverter's envelope (the schema repeated in every record, parsed each
 * time) costs more than the sink, which hides the sink's own cost in the end-to-end bench.
 */
public final class AvroBenchConverter implements Converter {
  private static final Schema CONNECT = BenchRecords.structs(0, 1).get(0).schema();
  private static final org.apache.avro.Schema AVRO = new StructToAvro().avroSchema(CONNECT);

  private final GenericDatumReader<GenericRecord> reader = new GenericDatumReader<>(AVRO);
  private BinaryDecoder decoder;
  private final StructToAvro toAvro = new StructToAvro();
  private final GenericDatumWriter<GenericRecord> writer = new GenericDatumWriter<>(AVRO);
  private BinaryEncoder encoder;

  @Override
  public void configure(Map<String, ?> configs, boolean isKey) {}

  @Override
  public byte[] fromConnectData(String topic, Schema schema, Object value) {
    ByteArrayOutputStream out = new ByteArrayOutputStream(1024);
    encoder = EncoderFactory.get().binaryEncoder(out, encoder);
    try {
      writer.write(toAvro.toRecord((Struct) value), encoder);
      encoder.flush();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.toByteArray();
  }

  @Override
  public SchemaAndValue toConnectData(String topic, byte[] value) {
    if (value == null) {
      return SchemaAndValue.NULL;
    }
    decoder = DecoderFactory.get().binaryDecoder(value, decoder);
    try {
      return new SchemaAndValue(CONNECT, toStruct(reader.read(null, decoder), CONNECT));
    } catch (IOException e) {
      throw new DataException("Not Avro binary of the bench record's schema", e);
    }
  }

  private static Struct toStruct(GenericRecord record, Schema schema) {
    Struct struct = new Struct(schema);
    for (Field f : schema.fields()) {
      struct.put(f, value(record.get(f.name()), f.schema()));
    }
    return struct;
  }

  private static Object value(Object v, Schema schema) {
    if (v == null) {
      return null;
    }
    String logical = schema.name();
    if (Decimal.LOGICAL_NAME.equals(logical)) {
      return new BigDecimal(
          new BigInteger(bytes(v)), Integer.parseInt(schema.parameters().get(Decimal.SCALE_FIELD)));
    }
    if (Timestamp.LOGICAL_NAME.equals(logical)) {
      return new java.util.Date((Long) v);
    }
    if (Date.LOGICAL_NAME.equals(logical)) {
      return new java.util.Date((Integer) v * 86_400_000L);
    }
    switch (schema.type()) {
      case STRING:
        return v.toString();
      case ARRAY:
        {
          List<?> in = (List<?>) v;
          List<Object> out = new ArrayList<>(in.size());
          for (Object e : in) {
            out.add(value(e, schema.valueSchema()));
          }
          return out;
        }
      case STRUCT:
        return toStruct((GenericRecord) v, schema);
      default:
        return v;
    }
  }

  private static byte[] bytes(Object avroBytes) {
    ByteBuffer b = ((ByteBuffer) avroBytes).duplicate();
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }
}
