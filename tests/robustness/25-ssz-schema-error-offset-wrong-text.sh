#!/bin/bash
# 25-ssz-schema-error-offset-wrong-text: errors about a ProgressiveContainer's
# __active_fields__ quoted the command-line type with an offset into the
# schema JSON. Now they name the schema file and the byte in it, and a
# misplaced __active_fields__ says it must be the first member.
. "$(dirname "$0")/lib.sh"
python3 -c "import json; print(json.dumps({'A': [['__active_fields__', 'ProgressiveContainer[' + ','.join(['0']*256 + ['1']) + ']'], ['a', 'uint8']]}))" > "$T/s.json"
run 20 "$BK" ssz root Container:A --schema "$T/s.json" --hex 0x00
expect "more than 256 bits" 64 "s.json: schema: A: more than 256 active-field bits at byte 5[0-9][0-9]$"
echo '{"A": [["a","uint8"],["__active_fields__","ProgressiveContainer[1]"]]}' > "$T/s2.json"
run 20 "$BK" ssz root Container:A --schema "$T/s2.json" --hex 0x00
expect "misplaced marker" 64 "s2.json: schema: A: __active_fields__ must be the first member at byte 21$"
echo '{"A": [["__active_fields__","ProgressiveContainer[1,1]"],["a","uint8"],["b","uint8"],["c","uint8"]]}' > "$T/s3.json"
run 20 "$BK" ssz root Container:A --schema "$T/s3.json" --hex 0x00
expect "bit count" 64 "s3.json: schema: A: 2 active-field bits set for 3 fields at byte 28$"
echo '{"A": [["a","List[Nope,4]"]]}' > "$T/s4.json"
run 20 "$BK" ssz root Container:A --schema "$T/s4.json" --hex 0x00
expect "field type error" 64 "s4.json: schema: A.a: type: unknown container: Nope at byte 18$"
one_line "field type error"
finish
