//! `opgen lint` against its referee, kube-api-linter (KAL), live: for each KAL rule opgen has,
//! KAL's own analysistest package (`pkg/analysis/<rule>/testdata/src/a`, the one its default
//! configuration is tested on) is taken from the Go module cache at the version
//! tools/kube-api-linter/go.mod pins, made a Go API package, linted by KAL (built by
//! tools/kube-api-linter/setup.sh, `KUBE_API_LINTER`), imported to Rust by `opgen import go`
//! and linted by `opgen lint`. Both sides' findings are compared as a multiset of
//! (type, field JSON name); every disagreement must be listed in `KNOWN` with its reason, and a
//! listed one that no longer occurs fails too. The table of docs/conformance/lint.md is what this
//! test computes (`OPGEN_REGEN=1` rewrites it).
//!
//! Making the testdata an API package changes two things, both neutral for the rules compared:
//! a `// +groupName` doc.go, and a json tag `json:"<GoName>"` on each field without one (the name
//! encoding/json gives it; controller-gen, and so `import go`, drops an untagged field). jsontags'
//! "missing json tag" findings are then not produced by KAL either: Go-only, see `KNOWN`.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// (type, field JSON name or "" for the type) → how many findings.
type Findings = BTreeMap<(String, String), usize>;

/// Disagreements: (rule, type, field JSON name, side that alone reports it, why); `*` for every
/// type or field of the rule on that side (where one reason covers them all).
const UNSIGNED: &str = "import go widens Go's unsigned integers to signed Rust ones (controller-gen's schema of a uintN is a signed integer with a format), so no unsigned type is left to report";
const MAP_KEY: &str = "a map with a non-string key: opgen's model refuses it as controller-gen does (map keys must be strings), so the field is not linted (import go should refuse it, see the report)";
const POINTER: &str = "import go makes a field an Option by its optionality in controller-gen's schema, not by Go's pointer: a Go pointer without omitempty or an optional marker is required, so a plain Rust struct (which opgen checks), and a Go struct marked optional an Option (which it does not)";
const GENERIC: &str = "a generic Go type: import go writes no Rust for it";

const KNOWN: &[(&str, &str, &str, Side, &str)] = &[
    (
        "requiredfields",
        "TestArrays",
        "ptrArray",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestBools",
        "boolPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestMaps",
        "mapPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithNegativeMaximum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithNegativeMinimum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithPositiveMaximum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithPositiveMinimum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithRangeIncludingZero",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithZeroMaximum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intPtrWithZeroMinimum",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "enumStringPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "enumValidEmptyStringPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringPtr",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringPtrWithMinLength",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringPtrWithMinLength0",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithAllOptionalFields",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithAtLeastOneOf",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithExactlyOneOf",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithMinProperties",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithNonOmittedFields",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithNonOmittedFieldsAndMinProperties",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithOneNonOmittedFieldAndMinProperties",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithOmittedRequiredFieldWithOmitEmpty",
        Side::Kal,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithOmittedRequiredField",
        Side::Kal,
        OMITEMPTY_DROPPED,
    ),
    (
        "nonpointerstructs",
        "A",
        "withOptionalFieldAndPointer",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withOptionalFieldsAndMinPropertiesAndPointer",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withOptionalFieldsAndMinPropertiesIncorrect",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withRequiredAndOptionalFieldAndPointer",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withRequiredAndOptionalFieldIncorrect",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withRequiredFieldAndPointer",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "A",
        "withRequiredFieldIncorrect",
        Side::Kal,
        POINTER,
    ),
    (
        "commentstart",
        "CommentStartTestStruct",
        "-",
        Side::Kal,
        "the fields of an anonymous Go struct (lines 14 and 18 of KAL's a.go, mapped to the next declaration, `json:\"-\"`): import go writes an anonymous struct as serde_json::Value, which has no fields to lint",
    ),
    (
        "commentstart",
        "CommentStartTestStruct",
        "AnonymousStructInlineJSONTag",
        Side::Kal,
        "an anonymous Go struct inlined: import go writes it as serde_json::Value, so neither it nor its fields carry a doc to check",
    ),
    (
        "commentstart",
        "CommentStartTestStruct",
        "EmptyJSONTag",
        Side::Opgen,
        "`json:\"\"` names nothing, so KAL skips the field; serde names it EmptyJSONTag, as encoding/json does, and opgen checks it",
    ),
    (
        "commentstart",
        "MultipleTypeDeclaration1",
        "",
        Side::Kal,
        "the field of unexportedStruct (line 71, mapped to the next declaration): import go writes no Rust for an unexported Go type",
    ),
    (
        "defaultorrequired",
        "Test",
        "kalConflictedField",
        Side::Kal,
        "`+default:=` is the declarative-validation spelling opgen's catalog does not have: import go leaves it out with a warning, so the field has no default",
    ),
    (
        "optionalorrequired",
        "OptionalOrRequiredTestStruct",
        "MarkedWithK8sRequiredAndK8sOptional",
        Side::Kal,
        "KAL reports this field twice (optional and required; k8s:optional and k8s:required), opgen once",
    ),
    (
        "nonullable",
        "NullableMarkerType",
        "",
        Side::Kal,
        "+nullable on a type: controller-gen applies it to fields only, and import go leaves the type's marker out with a warning",
    ),
    (
        "nonullable",
        "Test",
        "nullableMarkerFieldTypeAlias",
        Side::Kal,
        "its type alias lost +nullable on import (see NullableMarkerType)",
    ),
    (
        "jsontags",
        "*",
        "*",
        Side::Kal,
        "the import of KAL's package fails: an embedded non-struct field `json:\",inline\"` becomes a flattened String, which opgen refuses; most of these findings are Go-only anyway (a missing, empty, unterminated or xml-only tag: a Rust field always has a serde name)",
    ),
    (
        "nodurations",
        "*",
        "*",
        Side::Kal,
        "import go writes time.Duration as i64 (encoding/json writes nanoseconds) and metav1.Duration as String: the Rust type no longer says it is a duration; a Rust humantime/ISO duration type is reported",
    ),
    (
        "statussubresource",
        "*",
        "*",
        Side::Kal,
        "KAL's testdata marks types that are no kinds (no TypeMeta and ObjectMeta) with +kubebuilder:subresource:status; opgen's model refuses such a marker (it would have no effect), and without kinds the rule has nothing to check",
    ),
    (
        "integers",
        "Integers",
        "InvalidSliceUInt",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidSliceUIntAlias",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidSliceUIntAliasPtr",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidSliceUIntPtr",
        Side::Kal,
        UNSIGNED,
    ),
    ("integers", "Integers", "InvalidUInt", Side::Kal, UNSIGNED),
    ("integers", "Integers", "InvalidUInt16", Side::Kal, UNSIGNED),
    ("integers", "Integers", "InvalidUInt32", Side::Kal, UNSIGNED),
    ("integers", "Integers", "InvalidUInt64", Side::Kal, UNSIGNED),
    (
        "integers",
        "Integers",
        "InvalidUIntAlias",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidUIntAliasPtr",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidUIntPtr",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "Integers",
        "InvalidMapStringToUInt",
        Side::Kal,
        UNSIGNED,
    ),
    ("integers", "InvalidUInt16Alias", "", Side::Kal, UNSIGNED),
    ("integers", "InvalidUInt32Alias", "", Side::Kal, UNSIGNED),
    ("integers", "InvalidUInt64Alias", "", Side::Kal, UNSIGNED),
    ("integers", "InvalidUIntAlias", "", Side::Kal, UNSIGNED),
    ("integers", "InvalidUIntPtrAlias", "", Side::Kal, UNSIGNED),
    (
        "integers",
        "Integers",
        "InvalidMapIntToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "integers",
        "Integers",
        "InvalidMapUIntToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nobools",
        "Bools",
        "InvalidMapBoolPtrToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nobools",
        "Bools",
        "InvalidMapBoolToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nofloats",
        "Floats",
        "InvalidMapFloat32PtrToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nofloats",
        "Floats",
        "InvalidMapFloat32ToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nofloats",
        "Floats",
        "InvalidMapFloat64PtrToString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nofloats",
        "Floats",
        "InvalidMapFloat64ToString",
        Side::Kal,
        MAP_KEY,
    ),
    ("nomaps", "MapIntString", "", Side::Kal, MAP_KEY),
    ("nomaps", "MapIntStringB", "", Side::Kal, MAP_KEY),
    (
        "nomaps",
        "NoMapsTestStructWithDefiningType",
        "mapIntString",
        Side::Kal,
        MAP_KEY,
    ),
    (
        "nomaps",
        "NoMapsTestStructWithDefiningTypeAcrossFiles",
        "mapIntString",
        Side::Kal,
        MAP_KEY,
    ),
    ("nomaps", "MapComparableKeyInt", "", Side::Kal, GENERIC),
    ("nomaps", "MapComparableKeyString", "", Side::Kal, GENERIC),
    ("nomaps", "MapIntGenerics", "", Side::Kal, GENERIC),
    ("nomaps", "MapStringGenerics", "", Side::Kal, GENERIC),
    (
        "nomaps",
        "NoMapsTestStructWithGenerics",
        "mapComparableKeyInt",
        Side::Kal,
        "a field of a generic Go type's instance: import go writes no Rust for generic types, so the field's type is left out",
    ),
    (
        "nomaps",
        "NoMapsTestStructWithGenerics",
        "mapComparableKeyString",
        Side::Kal,
        "a field of a generic Go type's instance: import go writes no Rust for generic types, so the field's type is left out",
    ),
    (
        "nomaps",
        "NoMapsTestStructWithGenerics",
        "mapIntGenerics",
        Side::Kal,
        "a field of a generic Go type's instance: import go writes no Rust for generic types, so the field's type is left out",
    ),
    (
        "nomaps",
        "NoMapsTestStructWithGenerics",
        "mapStringGenerics",
        Side::Kal,
        "a field of a generic Go type's instance: import go writes no Rust for generic types, so the field's type is left out",
    ),
    (
        "arrayofstruct",
        "InvalidStructWithInlineStruct",
        "Items",
        Side::Kal,
        ANONYMOUS,
    ),
    (
        "conditions",
        "IncorrectFieldTag",
        "conditions",
        Side::Kal,
        PATCH,
    ),
    (
        "conditions",
        "MissingFieldTag",
        "Conditions",
        Side::Kal,
        PATCH,
    ),
    (
        "conditions",
        "MissingPatchMarkers",
        "conditions",
        Side::Kal,
        PATCH,
    ),
    (
        "defaults",
        "A",
        "k8sDefaultOnlyField",
        Side::Kal,
        "`+k8s:default` is a declarative-validation marker opgen's catalog does not have: import go leaves it out with a warning",
    ),
    ("defaults", "A", "missingOmitEmptyField", Side::Kal, OMITTED),
    (
        "defaults",
        "A",
        "pointerToStructMissingOmitEmpty",
        Side::Kal,
        OMITTED,
    ),
    (
        "defaults",
        "A",
        "structFieldWithOmitEmpty",
        Side::Kal,
        OMITTED,
    ),
    ("defaults", "A", "definedTypeField", Side::Kal, OMITTED),
    ("defaults", "A", "typeAliasField", Side::Kal, OMITTED),
    (
        "defaults",
        "A",
        "requiredFieldWithDefault",
        Side::Opgen,
        ALWAYS_WRITTEN,
    ),
    (
        "minlength",
        "MinLength",
        "StructWithoutMinProperties",
        Side::Kal,
        BAD_TAG,
    ),
    (
        "minlength",
        "MinLength",
        "StructWithMalformedMinProperties",
        Side::Kal,
        BAD_TAG,
    ),
    (
        "minlength",
        "MinLength",
        "StructArrayWithMalformedMinProperties",
        Side::Kal,
        BAD_TAG,
    ),
    (
        "minlength",
        "MinLength",
        "StructArrayWithoutMinProperties",
        Side::Kal,
        BAD_TAG,
    ),
    (
        "uniquemarkers",
        "*",
        "*",
        Side::Kal,
        "opgen's markers stage refuses a marker given twice on one field or type (an error, before any lint), so this test drops the repeat from the Go and the field (or the field of a type alias that had the pair) sees it once; and the declarative spellings `+default:value=` and `+k8s:format`/`minLength`/... are not in opgen's catalog, which import go leaves out with a warning. opgen's uniquemarkers reports a marker on a field and again on its type",
    ),
    (
        "maxlength",
        "MaxLength",
        "allOf",
        Side::Kal,
        "a field of the anonymous struct above allOf (`Struct`'s StringWithoutMaxLength), keyed to the next declared field: import go writes the anonymous struct as serde_json::Value; allOf itself is Schemaless, which KAL's field inspector and opgen lint skip",
    ),
    (
        "minlength",
        "MinLength",
        "inlineStruct",
        Side::Kal,
        ANONYMOUS,
    ),
    (
        "minlength",
        "MinLength",
        "inlineStructWithMinProperties",
        Side::Kal,
        ANONYMOUS,
    ),
    (
        "optionalfields",
        "A",
        "externalStructType",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "A",
        "externalStructWithNonOmittedField",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "A",
        "nonOmittedString",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "A",
        "nonOmittedStruct",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "A",
        "stringAliasWithEnumNoOmitEmpty",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "A", "struct", Side::Kal, OMITTED),
    (
        "optionalfields",
        "A",
        "structWithMinProperties",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "A",
        "structWithMinPropertiesOnStruct",
        Side::Kal,
        OMITTED,
    ),
    (
        "requiredfields",
        "StructWithOmittedRequiredField",
        "string",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestArrays",
        "arrayWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestArrays",
        "arrayWithOmitEmptyPtr",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "requiredfields",
        "TestArrays",
        "arrayWithPositiveMinItemsWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestArrays",
        "byteArrayWithMinLengthWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestBools",
        "boolWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestMaps",
        "mapWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestMaps",
        "mapWithPositiveMinPropertiesWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestMaps",
        "mapWithZeroMinPropertiesWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithNegativeMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithNegativeMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithPositiveMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithPositiveMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithRangeIncludingZeroWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithZeroMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "float32WithZeroMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithNegativeMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithNegativeMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithPositiveMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithPositiveMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithRangeIncludingZeroWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithZeroMaximumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestNumbers",
        "intWithZeroMinimumWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "enumStringWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "enumValidEmptyStringWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringWithMinLength0WithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringWithMinLengthWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStrings",
        "stringWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithAtLeastOneOfWithOmitEmpty",
        Side::Kal,
        REQUIRED_OPTION,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithExactlyOneOfWithOmitEmpty",
        Side::Kal,
        REQUIRED_OPTION,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithMinPropertiesWithOmitEmpty",
        Side::Kal,
        REQUIRED_OPTION,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structWithAllOptionalFieldsWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structWithNonOmittedFieldsWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structWithOmittedRequiredField",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structWithOmittedRequiredFieldWithOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structWithOneNonOmittedFieldAndMinPropertiesAndOmitEmpty",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TestStructs",
        "structPtrWithOneNonOmittedFieldAndMinPropertiesWithOmitEmpty",
        Side::Kal,
        REQUIRED_OPTION,
    ),
];
const ANONYMOUS: &str = "an anonymous Go struct: import go writes it as serde_json::Value, which has no fields or markers to check";
const PATCH: &str = "Go's protobuf and patchStrategy/patchMergeKey struct tags and markers: strategic merge patch does not apply to custom resources and a Rust field has no such tags, so opgen checks the conditions field's type, listType/listMapKey/optional markers and place only";
const OMITTED: &str = "import go writes an optional Go field as an Option that serde leaves out when None: the Rust already does what omitempty (omitzero for a struct) asks of the Go";
const ALWAYS_WRITTEN: &str = "import go writes a required Go field as a plain (non-Option) Rust field, which serde always writes, so the default is never applied; in Go, omitempty leaves the empty value out";
const REQUIRED_POINTER: &str = "a Go pointer that import go writes as the plain type: a required pointer without a `+required` marker (no omitempty is what makes it required; an `Option` would need a marker the Go does not have, and KAL's optionalorrequired would then differ), or a list's pointer items (`[]*string` is a `Vec<String>`), so the findings on the pointer (it should be one, or need not be) differ; a field's pointer marked `+required` is an `Option`, as in Go";
const REQUIRED_OMITTED: &str = "a pointer marked `+required` without omitempty: import go writes an `Option` that serde leaves out when `None` (an `Option` written as `null` would be nullable in the schema, which controller-gen's is not; the API server drops a `null` as it drops a missing field), so the Rust already does what the omitempty KAL asks of the Go does";
const REQUIRED_OPTION: &str = "a pointer marked `+required`, with omitempty, to a struct whose zero value is invalid (AtLeastOneOf, ExactlyOneOf, MinProperties): KAL asks for the pointer to go and, with it, for omitzero in place of omitempty (two findings); import go writes an `Option` with `skip_serializing_if`, which already leaves `None` out, so opgen asks only for the `Option` to go (one)";
const OMITEMPTY_DROPPED: &str = "a required Go field (`+required`, or a marker making it so) with omitempty: import go writes a required field plain, without `skip_serializing_if` (serde always writes it, where Go leaves an empty value out for the API server to refuse as missing), so opgen also reports the missing omitempty, and a struct of such fields has a valid zero value where KAL's has none";
const BAD_TAG: &str = "the Go json tag is unterminated (`json:\"name`), so KAL keys the field by its Go name while import go (as controller-gen) reads no name from it";

/// Rules that check nothing without settings (KAL refuses conflictingmarkers without one): their
/// testdata is written for configurations of `+custom:` markers, which opgen's marker catalog
/// refuses, so they are not compared here; tests/lint_cli.rs tests their settings.
const NEEDS_SETTINGS: &[&str] = &[
    "conflictingmarkers",
    "dependenttags",
    "forbiddenmarkers",
    "namingconventions",
    "preferredmarkers",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Side {
    Kal,
    Opgen,
}

fn kal() -> Option<PathBuf> {
    support::referee("KUBE_API_LINTER", "tools/kube-api-linter/setup.sh")
}

/// KAL's source at the pinned version, from the Go module cache.
fn kal_module() -> PathBuf {
    let go_mod = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tools/kube-api-linter/go.mod"),
    )
    .unwrap();
    let version = go_mod
        .lines()
        .find_map(|l| l.trim().strip_prefix("sigs.k8s.io/kube-api-linter "))
        .expect("go.mod requires kube-api-linter")
        .trim();
    module_dir(&format!("sigs.k8s.io/kube-api-linter@{version}"))
}

/// Where the Go module cache holds `module@version`, downloaded first if need be.
fn module_dir(module_at_version: &str) -> PathBuf {
    let out = Command::new("go")
        .args(["mod", "download", "-json", module_at_version])
        .env("GOFLAGS", "-mod=mod")
        .output()
        .expect("go runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let info: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    PathBuf::from(info["Dir"].as_str().unwrap())
}

const MODULE: &str = "example.com/kal";

/// KAL's package `a` of `rule` as the API package `example.com/kal/api/v1` of a fresh module.
fn go_module(kal: &Path, rule: &str, dir: &Path) {
    let src = kal.join("pkg/analysis").join(rule).join("testdata/src/a");
    let api = dir.join("api/v1");
    copy_go(&src, &api, true);
    // A sibling package `a` imports (`import "externaltypes"`), as a package of the module
    // beside the API, so that it stays out of the import.
    for entry in std::fs::read_dir(src.parent().unwrap()).unwrap() {
        let sibling = entry.unwrap().path();
        let name = sibling.file_name().unwrap().to_str().unwrap().to_owned();
        let import = format!("\"{name}\"");
        let imported = |file: &Path| std::fs::read_to_string(file).unwrap().contains(&import);
        let files: Vec<PathBuf> = std::fs::read_dir(&api)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|e| e == "go"))
            .collect();
        if name == "a" || !sibling.is_dir() || !files.iter().any(|f| imported(f)) {
            continue;
        }
        copy_go(&sibling, &dir.join(&name), false);
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            let text = text.replace(&import, &format!("\"{MODULE}/{name}\""));
            std::fs::write(&file, text).unwrap();
        }
    }
    std::fs::write(dir.join("go.mod"), format!("module {MODULE}\n\ngo 1.24\n")).unwrap();
    std::fs::write(
        api.join("zz_groupname.go"),
        "// +groupName=kal.example.com\npackage v1\n",
    )
    .unwrap();
}

fn copy_go(from: &Path, to: &Path, top: bool) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap();
        if path.is_dir() {
            copy_go(&path, &to.join(name), false);
        } else if path.extension().is_some_and(|e| e == "go") {
            let mut text = std::fs::read_to_string(&path).unwrap();
            if top {
                text = text.replacen("package a\n", "package v1\n", 1);
            }
            text = text.replace("\"a/", &format!("\"{MODULE}/api/v1/"));
            std::fs::write(to.join(name), with_json_tags(&text)).unwrap();
        }
    }
}

/// Each named field of a struct without a struct tag gets `json:"<its name>"`.
fn with_json_tags(text: &str) -> String {
    let mut out = String::new();
    let mut depth = 0usize;
    for line in text.lines() {
        let code = line.split("//").next().unwrap_or("");
        let trimmed = code.trim();
        let mut line = line.to_owned();
        if depth > 0 && !code.contains('`') && !code.contains('{') && !code.contains('(') {
            let mut words = trimmed.split_whitespace();
            if let (Some(name), Some(_ty)) = (words.next(), words.next())
                && name.starts_with(|c: char| c.is_ascii_alphabetic())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
                && !trimmed.contains(',')
            {
                let end = code.trim_end().len();
                line = format!("{} `json:\"{name}\"`{}", &line[..end], &line[end..]);
            }
        }
        depth += code.matches("struct {").count();
        if trimmed.starts_with('}') {
            depth = depth.saturating_sub(1);
        }
        out.push_str(&line);
        out.push('\n');
    }
    out
}

/// Go file:line → (type, field JSON name) of the declaration at or first after that line.
fn go_keys(dir: &Path, pattern: &str) -> BTreeMap<(PathBuf, usize), (String, String)> {
    let packages = opgen::load_go::load(dir, &[pattern.to_owned()]).expect("the Go loads");
    let mut keys = BTreeMap::new();
    for p in packages.iter().filter(|p| p.root) {
        for t in &p.types {
            keys.insert(
                (t.pos.file.clone(), t.pos.line),
                (t.name.clone(), String::new()),
            );
            if let opgen::load_go::ExprKind::Struct(fields) = t.ty.kind() {
                for f in fields {
                    // An embedded field (no name) is keyed by the json name its tag gives.
                    let tag = f.tag_value("json").and_then(|j| j.split(',').next());
                    let named = (!f.name.is_empty()).then_some(f.name.as_str());
                    let Some(json) = tag.filter(|j| !j.is_empty()).or(named) else {
                        continue;
                    };
                    keys.insert(
                        (f.pos.file.clone(), f.pos.line),
                        (t.name.clone(), json.to_owned()),
                    );
                }
            }
        }
    }
    keys
}

fn kal_findings(kal: &Path, rule: &str, dir: &Path) -> Findings {
    kal_findings_of(kal, &[rule], dir, "./...")
        .remove(rule)
        .unwrap_or_default()
}

/// KAL's findings of `rules` on the packages `pattern` matches, by rule. Its answer for the
/// same Go files (their digest), rules, pattern and binaries (KAL's and the `go` it loads
/// packages with) is kept in the target directory ([`support::referee_runs`]) for the next run,
/// with the go.mod and go.sum its `-mod=mod` completed, which are put back in `dir` when the
/// answer is read: the test loads the packages again after it.
fn kal_findings_of(
    kal: &Path,
    rules: &[&str],
    dir: &Path,
    pattern: &str,
) -> BTreeMap<String, Findings> {
    use support::referee_runs::{RefereeRuns, digest_of_tree, identity_on_path};
    let question = format!(
        "{} -json {pattern} (KAL_ENABLE={}) in {} holding {}; {}",
        kal.display(),
        rules.join(","),
        dir.display(),
        digest_of_tree(dir),
        identity_on_path("go").expect("go is on PATH"),
    );
    let runs = RefereeRuns::of(kal, &question);
    const MODULE_FILES: [&str; 2] = ["go.mod", "go.sum"];
    // An answer kept without go.mod (by this test before it kept one) is asked again.
    let kept = runs.read().and_then(|mut files| {
        let json = files
            .remove("stdout.json")
            .filter(|_| files.contains_key("go.mod"))?;
        for (name, text) in files {
            assert!(MODULE_FILES.contains(&name.as_str()), "kept {name}");
            std::fs::write(dir.join(name), text).unwrap();
        }
        Some(json)
    });
    let json: serde_json::Value = match kept {
        Some(kept) => serde_json::from_str(&kept).expect("the kept answer is JSON"),
        None => {
            let out = Command::new(kal)
                .args(["-json", pattern])
                .current_dir(dir)
                .env("KAL_ENABLE", rules.join(","))
                .env("GOFLAGS", "-mod=mod")
                .env("GOWORK", "off")
                .output()
                .expect("kube-api-linter runs");
            let json = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
                panic!(
                    "kube-api-linter on {rules:?}: {e}\n{}",
                    String::from_utf8_lossy(&out.stderr)
                )
            });
            let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
            let mut files = BTreeMap::from([("stdout.json".to_owned(), stdout)]);
            for name in MODULE_FILES {
                if let Ok(text) = std::fs::read_to_string(dir.join(name)) {
                    files.insert(name.to_owned(), text);
                }
            }
            runs.write(&files);
            json
        }
    };
    let keys = go_keys(dir, pattern);
    let mut found: BTreeMap<String, Findings> = BTreeMap::new();
    // A package with tests is analysed twice, alone and as its test variant
    // (`path [path.test]`): its findings count once.
    let packages = json.as_object().unwrap().iter();
    let packages = packages.filter(|(path, _)| !path.ends_with(".test]"));
    for (rule, diags) in packages.flat_map(|(_, d)| d.as_object().unwrap()) {
        // A package that does not type-check is not analysed: no findings, and no verdict.
        if let Some(error) = diags.get("error") {
            panic!("kube-api-linter's {rule} did not run: {error}");
        }
        for d in diags.as_array().into_iter().flatten() {
            let posn = d["posn"].as_str().unwrap();
            let mut parts = posn.rsplitn(3, ':');
            let (_, line, file) = (parts.next(), parts.next().unwrap(), parts.next().unwrap());
            let line: usize = line.parse().unwrap();
            let key = key_at(&keys, Path::new(file), line)
                .or_else(|| unexported_type_at(Path::new(file), line))
                .or_else(|| key_before(&keys, Path::new(file), line))
                .unwrap_or_else(|| panic!("{rule}: no Go declaration at or around {posn}"));
            *found
                .entry(rule.clone())
                .or_default()
                .entry(key)
                .or_default() += 1;
        }
    }
    found
}

/// The unexported Go type declared at or above `line` of `file` (the Go loader, like
/// controller-gen, leaves unexported types out; KAL lints them): its name, with no field.
fn unexported_type_at(file: &Path, line: usize) -> Option<(String, String)> {
    let text = std::fs::read_to_string(file).ok()?;
    let lines: Vec<&str> = text.lines().take(line).collect();
    let declaration = lines.iter().rev().find_map(|l| l.strip_prefix("type "))?;
    let name = declaration.split_whitespace().next()?;
    name.starts_with(|c: char| c.is_ascii_lowercase())
        .then(|| (name.to_owned(), String::new()))
}

fn opgen(dir: &Path, args: &[&str]) -> std::process::Output {
    Command::new(support::opgen_bin())
        .args(args)
        .current_dir(dir)
        .env("GOFLAGS", "-mod=mod")
        .env("GOWORK", "off")
        .output()
        .expect("opgen runs")
}

/// What `opgen import go` and `opgen lint --only rule` make of the module.
#[derive(Default)]
struct Ours {
    found: Findings,
    /// Go declarations the import refused, blanked out so that it takes the rest: their key and
    /// the import's error.
    left_out: Vec<((String, String), String)>,
    /// What the model refused in the imported Rust (its types are not linted).
    refused: Vec<String>,
}

/// Imports the module (each Go declaration the import refuses blanked out and the import run
/// again), then lints the Rust; Err with the import's error where it names no Go line.
fn opgen_findings(rule: &str, go: &Path, project: &Path) -> Result<Ours, String> {
    std::fs::create_dir_all(project).unwrap();
    let init = opgen(
        project,
        &["init", "--domain", "example.com", "--project-name", "kal"],
    );
    assert!(
        init.status.success(),
        "{}",
        String::from_utf8_lossy(&init.stderr)
    );
    let keys = go_keys(go, "./...");
    let mut ours = Ours::default();
    for attempt in 0.. {
        assert!(attempt < 100, "{rule}: the import keeps failing");
        let import = opgen(
            project,
            &["import", "go", go.to_str().unwrap(), "--paths", "./api/..."],
        );
        if import.status.success() {
            break;
        }
        let err = String::from_utf8_lossy(&import.stderr).into_owned();
        let errors = located_errors(&err, go);
        if errors.is_empty() {
            // The markers stage reads the rendered Rust: a marker given twice is an error there,
            // at a line of the Rust the failed import did not write.
            let first = err.lines().next().unwrap_or_default().to_owned();
            // "'<marker>' is given twice": that marker's repeats, whatever their values.
            let twice = first
                .contains("is given twice")
                .then(|| first.split(['\'', '`']).nth(1))
                .flatten();
            let Some(name) = twice else {
                return Err(first);
            };
            if !drop_repeated_markers(go, &keys, name, &first, &mut ours.left_out) {
                return Err(first);
            }
            continue;
        }
        for (file, line, message) in errors {
            let key = key_at(&keys, &file, line).unwrap_or_default();
            blank_declaration(&file, line);
            ours.left_out.push((key, message));
        }
    }
    let out = opgen(project, &["lint", "--only", rule, "--format", "json"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    ours.refused = stderr
        .lines()
        .filter(|l| l.starts_with("error: ") && !l.starts_with("error: lint: "))
        .map(str::to_owned)
        .collect();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: serde_json::Value = serde_json::from_str(line).unwrap();
        assert_eq!(f["rule"], rule);
        let key = (
            f["type"].as_str().unwrap().to_owned(),
            f["field"].as_str().unwrap_or_default().to_owned(),
        );
        *ours.found.entry(key).or_default() += 1;
    }
    Ok(ours)
}

/// The key of the declaration at or first after `line` of `file`.
fn key_at(
    keys: &BTreeMap<(PathBuf, usize), (String, String)>,
    file: &Path,
    line: usize,
) -> Option<(String, String)> {
    keys.range((file.to_owned(), line)..)
        .next()
        .filter(|((f, _), _)| f == file)
        .map(|(_, k)| k.clone())
}

/// The key of the last declaration before `line` of `file`: for a finding past the file's last
/// declaration, inside it (a field of an anonymous struct that ends the file, external-secrets'
/// `ControllerClassResource.Spec`), the field that holds it.
fn key_before(
    keys: &BTreeMap<(PathBuf, usize), (String, String)>,
    file: &Path,
    line: usize,
) -> Option<(String, String)> {
    keys.range(..(file.to_owned(), line))
        .next_back()
        .filter(|((f, _), _)| f == file)
        .map(|(_, k)| k.clone())
}

/// The errors of opgen's stderr located in a Go file under `go`: file, line, message.
fn located_errors(stderr: &str, go: &Path) -> Vec<(PathBuf, usize, String)> {
    let mut out = Vec::new();
    let mut message = None;
    for line in stderr.lines() {
        if let Some(m) = line.strip_prefix("error: ") {
            message = Some(m.to_owned());
        } else if let Some(at) = line.trim_start().strip_prefix("--> ")
            && let Some(m) = message.take()
        {
            let mut parts = at.rsplitn(3, ':');
            let (_, line, file) = (parts.next(), parts.next(), parts.next());
            if let (Some(line), Some(file)) = (line.and_then(|l| l.parse().ok()), file)
                && Path::new(file).starts_with(go)
            {
                out.push((PathBuf::from(file), line, m));
            }
        }
    }
    out
}

/// Blanks each marker line that repeats one above it in the same comment block (a `name` marker
/// with any value), in every Go file under `go`, keeping the declaration it stood on (with `message`)
/// in `left_out`; false when there was none.
fn drop_repeated_markers(
    go: &Path,
    keys: &BTreeMap<(PathBuf, usize), (String, String)>,
    name: &str,
    message: &str,
    left_out: &mut Vec<((String, String), String)>,
) -> bool {
    let mut dropped = false;
    let api = go.join("api/v1");
    for entry in std::fs::read_dir(&api).unwrap() {
        let file = entry.unwrap().path();
        if file.extension().is_none_or(|e| e != "go") {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        let mut block: Vec<String> = Vec::new();
        let mut lines = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let t = line.trim();
            let marker = t
                .strip_prefix("//")
                .map(str::trim)
                .and_then(|m| m.strip_prefix('+'))
                .map(|m| {
                    // A `name` marker repeats with any value; any other with the same text.
                    let marker = m.split('=').next().unwrap_or(m).trim_end_matches(':');
                    if marker == name { marker } else { m }
                });
            // Markers of a declaration: its doc and the comment groups above it.
            if !t.is_empty() && !t.starts_with("//") {
                block.clear();
            }
            match marker {
                Some(m) if block.iter().any(|b| b == m) => {
                    let key = key_at(keys, &file, i + 1).unwrap_or_default();
                    left_out.push((key, message.to_owned()));
                    lines.push(String::new());
                    dropped = true;
                }
                Some(m) => {
                    block.push(m.to_owned());
                    lines.push(line.to_owned());
                }
                None => lines.push(line.to_owned()),
            }
        }
        std::fs::write(&file, lines.join("\n") + "\n").unwrap();
    }
    dropped
}

/// Blanks the Go declaration at `line` (a whole `struct { ... }` when it opens one), keeping
/// every other line where it is.
fn blank_declaration(file: &Path, line: usize) {
    let text = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    let mut depth = 0i32;
    for l in lines.iter_mut().skip(line - 1) {
        let code = l.split("//").next().unwrap_or("").to_owned();
        depth += code.matches('{').count() as i32 - code.matches('}').count() as i32;
        l.clear();
        if depth <= 0 {
            break;
        }
    }
    std::fs::write(file, lines.join("\n") + "\n").unwrap();
}

struct Row {
    rule: &'static str,
    kal: usize,
    matched: usize,
    /// Why the whole package could not be imported.
    import_error: Option<String>,
    ours: Ours,
    /// KAL's findings on declarations the import left out, with its error.
    left_out: Vec<((String, String), String)>,
    disagreements: Vec<(String, String, Side)>,
}

#[test]
fn findings_agree_with_kube_api_linter_rule_by_rule() {
    let Some(kal) = kal() else { return };
    let module = kal_module();
    let rules: Vec<&'static str> = opgen::lint::rules()
        .iter()
        .map(|r| r.name)
        .filter(|r| !NEEDS_SETTINGS.contains(r))
        .filter(|r| {
            module
                .join("pkg/analysis")
                .join(r)
                .join("testdata/src/a")
                .is_dir()
        })
        .collect();
    assert!(
        rules.len() >= 10,
        "opgen has kube-api-linter's rules: {rules:?}"
    );
    let work = support::same_path_each_run("lint-conformance");
    let mut rows = Vec::new();
    for rule in rules {
        let go = work.join(rule).join("go");
        go_module(&module, rule, &go);
        let theirs = kal_findings(&kal, rule, &go);
        let (ours, import_error) = match opgen_findings(rule, &go, &work.join(rule).join("project"))
        {
            Ok(ours) => (ours, None),
            Err(e) => (Ours::default(), Some(e)),
        };
        let mut row = Row {
            rule,
            kal: theirs.values().sum(),
            matched: 0,
            import_error,
            ours: Ours::default(),
            left_out: Vec::new(),
            disagreements: Vec::new(),
        };
        let keys: std::collections::BTreeSet<_> = theirs.keys().chain(ours.found.keys()).collect();
        for key in keys {
            let (k, o) = (
                theirs.get(key).copied().unwrap_or(0),
                ours.found.get(key).copied().unwrap_or(0),
            );
            row.matched += k.min(o);
            let left_out = ours.left_out.iter().find(|(left, _)| left == key);
            for _ in 0..k.abs_diff(o) {
                match left_out {
                    Some(left) if k > o => row.left_out.push(left.clone()),
                    _ => {
                        let side = if k > o { Side::Kal } else { Side::Opgen };
                        row.disagreements.push((key.0.clone(), key.1.clone(), side));
                    }
                }
            }
        }
        row.ours = ours;
        rows.push(row);
    }
    check_known_and_table(&rows);
    // Kept when a check fails, to look at.
    let _ = std::fs::remove_dir_all(&work);
}

fn check_known_and_table(rows: &[Row]) {
    let mut unlisted = Vec::new();
    let mut seen = Vec::new();
    for row in rows {
        for (t, f, side) in &row.disagreements {
            match KNOWN.iter().position(|k| {
                k.0 == row.rule
                    && (k.1 == "*" || k.1 == t)
                    && (k.2 == "*" || k.2 == f)
                    && k.3 == *side
            }) {
                Some(i) => seen.push(i),
                None => unlisted.push(format!(
                    "(\"{}\", \"{t}\", \"{f}\", Side::{side:?}, \"\"),",
                    row.rule
                )),
            }
        }
    }
    let stale: Vec<_> = KNOWN
        .iter()
        .enumerate()
        .filter(|(i, _)| !seen.contains(i))
        .map(|(_, k)| k)
        .collect();
    let table = table(rows);
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/conformance/lint.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_default();
    let (begin, end) = (
        "<!-- table: tests/lint_conformance.rs -->\n",
        "<!-- end table -->\n",
    );
    let current = doc
        .split(begin)
        .nth(1)
        .and_then(|rest| rest.split(end).next())
        .unwrap_or_default();
    if std::env::var("OPGEN_REGEN").is_ok() && current != table {
        let (head, tail) = match (doc.split_once(begin), doc.split_once(end)) {
            (Some((head, _)), Some((_, tail))) => (head.to_owned(), tail.to_owned()),
            _ => (doc.clone(), String::new()),
        };
        std::fs::write(&doc_path, format!("{head}{begin}{table}{end}{tail}")).unwrap();
    } else {
        assert_eq!(
            current, table,
            "docs/conformance/lint.md's table is out of date (OPGEN_REGEN=1 rewrites it)"
        );
    }
    assert!(
        unlisted.is_empty(),
        "disagreements with kube-api-linter not in KNOWN:\n{}",
        unlisted.join("\n")
    );
    assert!(
        stale.is_empty(),
        "KNOWN lists disagreements that no longer occur: {stale:?}"
    );
}

fn table(rows: &[Row]) -> String {
    let mut out = String::from(
        "| rule | KAL findings | matched | left out by the import | KAL only | opgen only |\n| --- | ---: | ---: | ---: | ---: | ---: |\n",
    );
    for r in rows {
        let only = |side| r.disagreements.iter().filter(|d| d.2 == side).count();
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            r.rule,
            r.kal,
            r.matched,
            r.left_out.len(),
            only(Side::Kal),
            only(Side::Opgen),
        ));
    }
    let sum = |f: fn(&Row) -> usize| rows.iter().map(f).sum::<usize>();
    out.push_str(&format!(
        "| **all** | {} | {} | {} | {} | {} |\n",
        sum(|r| r.kal),
        sum(|r| r.matched),
        sum(|r| r.left_out.len()),
        sum(|r| r.disagreements.iter().filter(|d| d.2 == Side::Kal).count()),
        sum(|r| r
            .disagreements
            .iter()
            .filter(|d| d.2 == Side::Opgen)
            .count()),
    ));
    out.push_str("\nWhat `opgen import go` refused (the Go declaration is left out and the rest imported), and what the model refused in the imported Rust:\n\n");
    let quote = |m: &str| format!("`{}`", m.replace('`', "'"));
    for r in rows {
        if let Some(e) = &r.import_error {
            out.push_str(&format!("- {}: the whole package: {}\n", r.rule, quote(e)));
        }
        let mut left: Vec<String> = r
            .ours
            .left_out
            .iter()
            .map(|((t, f), m)| format!("- {}: {t}.{f}: {}\n", r.rule, quote(m)))
            .collect();
        left.extend(r.ours.refused.iter().map(|m| {
            format!(
                "- {}: model: {}\n",
                r.rule,
                quote(m.trim_start_matches("error: "))
            )
        }));
        left.dedup();
        out.extend(left);
    }
    out.push_str("\nEvery disagreement and why (`KNOWN`; `*` stands for every type or field of the rule):\n\n");
    for (rule, t, f, side, why) in KNOWN {
        let side = match side {
            Side::Kal => "KAL only",
            Side::Opgen => "opgen only",
        };
        let at = if f.is_empty() {
            (*t).to_owned()
        } else {
            format!("{t}.{f}")
        };
        out.push_str(&format!("- {rule} `{at}` ({side}): {why}\n"));
    }
    out
}

/// Disagreements on jobset: (rule, type, field JSON name, side, why).
const KNOWN_JOBSET: &[(&str, &str, &str, Side, &str)] = &[
    ("optionalorrequired", "JobSet", "*", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "JobSet", "*", Side::Kal, KIND_ROOT),
    (
        "commentstart",
        "LeaderElectionConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "LeaderElectionConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    ("optionalfields", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    (
        "optionalfields",
        "ControllerManager",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "conditions",
        "JobSetStatus",
        "conditions",
        Side::Kal,
        JOBSET_PATCH,
    ),
];
const JOBSET_PATCH: &str = "Go's patchStrategy/patchMergeKey markers and protobuf/patch struct tags on JobSetStatus.Conditions: see the rule table's conditions entries";
const KIND_ROOT: &str = "the fields of the Go kind struct (metadata, spec, status): kube-derive writes the kind's root type, so the Rust has no such fields";
const UPSTREAM: &str = "a type of another module or package (k8s.io/component-base's LeaderElectionConfiguration and LoggingConfiguration, apimachinery's TypeMeta, GroupVersionKind, GroupVersionResource and Timestamp, k8s.io/api's admission/v1 AdmissionRequest and core/v1 ResourceList (karpenter's `type Limits v1.ResourceList` names it), gateway-api's ParentReference and the other apis/v1 types its apisx uses, cert-manager's own packages outside the API groups, openreports' ReportResult and ReportSummary, sigstore's k8smanifest ObjectReference and ObjectFieldBinding) that import go writes under src/api/upstream/: opgen lints every type under src/api/, KAL only the packages it is given or, for types it does see, only where the field names them with a plain identifier";

/// A Go API module of the real-world corpus, linted by KAL on the Go and by `opgen lint` on what
/// `opgen import go` makes of it.
struct RealWorld {
    module: &'static str,
    version: &'static str,
    packages: &'static str,
    domain: &'static str,
    embedded_object_meta: bool,
    /// The project is made multigroup first (the module holds several API groups).
    multigroup: bool,
    /// Disagreements: (rule, type, field JSON name, side, why).
    known: &'static [(&'static str, &'static str, &'static str, Side, &'static str)],
}

/// jobset (its version in the controller-gen real-world corpus of tests/import_go.rs): KAL on its
/// Go API packages against `opgen lint` on what `opgen import go` makes of them, for every rule
/// both have that KAL runs by default.
#[test]
fn jobset_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/jobset",
        version: "v0.11.1",
        packages: "./api/...",
        domain: "x-k8s.io",
        embedded_object_meta: true,
        multigroup: false,
        known: KNOWN_JOBSET,
    });
}

/// gateway-api's v1 API (its version in tests/conformance_realworld.rs), as jobset.
#[test]
fn gateway_api_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/gateway-api",
        version: "v1.6.3",
        packages: "./apis/v1",
        domain: "networking.k8s.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_GATEWAY_API,
    });
}

/// flux source-controller's API (its version in the controller-gen real-world corpus), as jobset.
#[test]
fn flux_source_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/source-controller/api",
        version: "v1.9.6",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX,
    });
}

/// kueue's API (its version in the controller-gen real-world corpus), as jobset.
#[test]
fn kueue_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/kueue",
        version: "v0.17.0",
        packages: "./apis/kueue/...",
        domain: "x-k8s.io",
        embedded_object_meta: true,
        multigroup: false,
        known: KNOWN_KUEUE,
    });
}

/// flux kustomize-controller's API (its version in the controller-gen real-world corpus), as
/// jobset.
#[test]
fn flux_kustomize_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/kustomize-controller/api",
        version: "v1.9.0",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX_KUSTOMIZE,
    });
}

/// flux helm-controller's API (its version in the controller-gen real-world corpus), as jobset.
#[test]
fn flux_helm_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/helm-controller/api",
        version: "v1.6.5",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX_HELM,
    });
}

/// flux notification-controller's API (its version in the controller-gen real-world corpus), as
/// jobset.
#[test]
fn flux_notification_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/notification-controller/api",
        version: "v1.9.4",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX_NOTIFICATION,
    });
}

/// flux image-reflector-controller's API (its version in the controller-gen real-world corpus),
/// as jobset.
#[test]
fn flux_image_reflector_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/image-reflector-controller/api",
        version: "v1.2.5",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX_IMAGE_REFLECTOR,
    });
}

/// flux image-automation-controller's API (its version in the controller-gen real-world corpus),
/// as jobset.
#[test]
fn flux_image_automation_controller_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/fluxcd/image-automation-controller/api",
        version: "v1.2.5",
        packages: "./...",
        domain: "toolkit.fluxcd.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_FLUX_IMAGE_AUTOMATION,
    });
}

/// cert-manager's API (its version in the controller-gen real-world corpus), as jobset.
#[test]
fn cert_manager_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/cert-manager/cert-manager",
        version: "v1.21.2",
        packages: "./pkg/apis/...",
        domain: "cert-manager.io",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_CERT_MANAGER,
    });
}

/// velero's velero.io API, v1 and v2alpha1 (its version in the controller-gen real-world
/// corpus), as jobset.
#[test]
fn velero_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/vmware-tanzu/velero",
        version: "v1.18.3",
        packages: "./pkg/apis/velero/...",
        domain: "io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_VELERO,
    });
}

/// Disagreements on velero: the classes of the modules above.
const KNOWN_VELERO: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    (
        "nodurations",
        "BackupRepositorySpec",
        "maintenanceFrequency",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "BackupSpec",
        "csiSnapshotTimeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "BackupSpec",
        "itemOperationTimeout",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "BackupSpec", "ttl", Side::Kal, DURATION),
    (
        "nodurations",
        "BackupStorageLocationSpec",
        "backupSyncPeriod",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "BackupStorageLocationSpec",
        "validationFrequency",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "DataDownloadSpec",
        "operationTimeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "DataUploadSpec",
        "operationTimeout",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "ExecHook", "timeout", Side::Kal, DURATION),
    (
        "nodurations",
        "ExecRestoreHook",
        "execTimeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ExecRestoreHook",
        "waitTimeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "InitRestoreHook",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "RestoreSpec",
        "itemOperationTimeout",
        Side::Kal,
        DURATION,
    ),
    ("optionalfields", "BackupSpec", "hooks", Side::Kal, OMITTED),
    ("optionalfields", "RestoreSpec", "hooks", Side::Kal, OMITTED),
    (
        "optionalfields",
        "DataDownloadStatus",
        "progress",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "DataUploadStatus",
        "progress",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PodVolumeBackupStatus",
        "progress",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PodVolumeRestoreStatus",
        "progress",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "DataUploadSpec",
        "csiSnapshot",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "BackupRepositorySpec",
        "repositoryType",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "CSISnapshotSpec",
        "snapshotClass",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "PodVolumeBackupSpec",
        "uploaderType",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "PodVolumeRestoreSpec",
        "uploaderType",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "InitRestoreHook",
        "initContainers",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "nonpointerstructs",
        "BackupResourceHook",
        "exec",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "StorageType",
        "objectStorage",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    ("jsontags", "typeInfo", "", Side::Kal, UNEXPORTED),
    ("optionalorrequired", "typeInfo", "", Side::Kal, UNEXPORTED),
];

/// Chaos Mesh's chaos-mesh.org API (its version in the controller-gen real-world corpus; the
/// v1alpha1 package: the module's other package, genericwebhook, holds no API types), as
/// jobset.
#[test]
fn chaos_mesh_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/chaos-mesh/chaos-mesh/api",
        version: "v0.0.0-20260906172039-d70b66ad97ac",
        packages: "./v1alpha1/...",
        domain: "org",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_CHAOS_MESH,
    });
}

const NO_SPACE_MARKER: &str = "`//+optional` (or `//+kubebuilder:default=...`), without a space (chaos-mesh's AttrOverrideSpec, external-secrets' GithubProvider and VaultAppRole): controller-gen reads it as the marker, and so does import go, so the Rust field is optional (or defaulted); KAL's marker parser wants `// +`, so to it the field has no marker";
const EMBEDDED_FIELD: &str = "an embedded Go field of a named non-struct type with a json name (ExperimentStatus's `DesiredPhase `json:\"desiredPhase\"``): KAL's field inspector skips embedded fields, while controller-gen writes it as a field of that name, and so does import go, which opgen checks";
const UNEXPORTED_FIELDS: &str = "unexported Go fields without json tags (chaos-mesh's registry of its kinds, ChaosKind and chaosKindMap): encoding/json and controller-gen skip them, and so does import go, so the Rust has no field to lint; KAL checks every field of a type declaration";

/// Disagreements on chaos-mesh: the classes of the modules above, and three of its own.
const KNOWN_CHAOS_MESH: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("integers", "*", "*", Side::Kal, UNSIGNED),
    (
        "optionalorrequired",
        "AttrOverrideSpec",
        "*",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "nophase",
        "ExperimentStatus",
        "desiredPhase",
        Side::Opgen,
        EMBEDDED_FIELD,
    ),
    (
        "nomaps",
        "HTTPStatusCheck",
        "headers",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "defaults",
        "ScheduleSpec",
        "concurrencyPolicy",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ScheduleSpec",
        "concurrencyPolicy",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ChaosOnlyScheduleSpec",
        "concurrencyPolicy",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ConditionalBranchesStatus",
        "branches",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ConditionalBranchesStatus",
        "context",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "JVMParameter",
        "exception",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "JVMParameter",
        "name",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "JVMParameter",
        "returnValue",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "JVMParameter",
        "ruleData",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "RemoteClusterCondition",
        "reason",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "PhysicalMachineSelector",
        "selector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ScheduleStatus",
        "time",
        Side::Kal,
        OMITTED,
    ),
    ("jsontags", "ChaosKind", "*", Side::Kal, UNEXPORTED_FIELDS),
    (
        "optionalorrequired",
        "ChaosKind",
        "*",
        Side::Kal,
        UNEXPORTED_FIELDS,
    ),
    ("nomaps", "ChaosKind", "", Side::Kal, UNEXPORTED_FIELDS),
];

/// prometheus-operator's API (its version in the controller-gen real-world corpus), as jobset.
#[test]
fn prometheus_operator_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring",
        version: "v0.95.1",
        packages: "./...",
        domain: "monitoring.coreos.com",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_PROMETHEUS_OPERATOR,
    });
}

fn real_world_agrees(case: &RealWorld) {
    let Some(kal) = kal() else { return };
    // The module's name: its path's last element that is no `api` or major version
    // (`github.com/fluxcd/helm-controller/api` is helm-controller, `.../keda/v2` keda).
    let name = case
        .module
        .rsplit('/')
        .find(|e| *e != "api" && !(e.starts_with('v') && e[1..].parse::<u32>().is_ok()))
        .unwrap();
    // A module from the proxy, or (no version) a project kept under tests/fixtures/.
    let source = if case.version.is_empty() {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures")
            .join(case.module)
    } else {
        module_dir(&format!("{}@{}", case.module, case.version))
    };
    // A directory per module and packages: tests of one module's packages run at once.
    let packages = case
        .packages
        .trim_start_matches("./")
        .trim_end_matches("...")
        .trim_end_matches('/')
        .replace(['/', '.'], "_");
    let work = support::same_path_each_run(&format!("lint-{name}-{packages}"));
    let go = work.join("go");
    copy_tree(&source, &go);
    // The module alone (as the proxy serves it), not its repository's workspace.
    let _ = std::fs::remove_file(go.join("go.work"));
    // The project's generated deep copies are not kept with it (nor are they needed by import
    // go): without them its packages do not type-check, which KAL needs, so `make generate`'s
    // controller-gen writes them.
    if case.version.is_empty() {
        let Some(controller_gen) =
            support::referee("CONTROLLER_GEN", "tools/controller-gen/setup.sh")
        else {
            return;
        };
        let out = Command::new(controller_gen)
            .args(["object", &format!("paths={}", case.packages)])
            .current_dir(&go)
            .env("GOFLAGS", "-mod=mod")
            .env("GOWORK", "off")
            .output()
            .expect("controller-gen runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    // The module's go.sum may lack entries its packages' imports need: complete it once.
    let out = Command::new("go")
        .args(["list", "-mod=mod", case.packages])
        .current_dir(&go)
        .env("GOWORK", "off")
        .output()
        .expect("go runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let module = kal_module();
    let rules: Vec<&str> = opgen::lint::rules()
        .iter()
        .filter(|r| r.default && module.join("pkg/analysis").join(r.name).is_dir())
        .map(|r| r.name)
        .collect();
    let theirs = kal_findings_of(&kal, &rules, &go, case.packages);
    let project = work.join("project");
    std::fs::create_dir_all(&project).unwrap();
    let mut import = vec![
        "import",
        "go",
        go.to_str().unwrap(),
        "--paths",
        case.packages,
    ];
    if case.embedded_object_meta {
        import.push("--generate-embedded-object-meta");
    }
    let init = ["init", "--domain", case.domain, "--project-name", name];
    let multigroup = ["edit", "--multigroup"];
    let steps: &[&[&str]] = if case.multigroup {
        &[&init, &multigroup, &import]
    } else {
        &[&init, &import]
    };
    for args in steps {
        let out = opgen(&project, args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let only = rules.join(",");
    let out = opgen(&project, &["lint", "--only", &only, "--format", "json"]);
    let mut ours: BTreeMap<String, Findings> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let f: serde_json::Value = serde_json::from_str(line).unwrap();
        let key = (
            f["type"].as_str().unwrap().to_owned(),
            f["field"].as_str().unwrap_or_default().to_owned(),
        );
        *ours
            .entry(f["rule"].as_str().unwrap().to_owned())
            .or_default()
            .entry(key)
            .or_default() += 1;
    }
    let mut unlisted = Vec::new();
    let mut used = vec![false; case.known.len()];
    let (mut total, mut matched) = (0, 0);
    // Unmatched findings and fields by side and reason, for docs/conformance/lint.md.
    let mut by_reason: BTreeMap<(String, &str), (usize, usize)> = BTreeMap::new();
    for rule in &rules {
        let (k, o) = (
            theirs.get(*rule).cloned().unwrap_or_default(),
            ours.get(*rule).cloned().unwrap_or_default(),
        );
        total += k.values().sum::<usize>();
        let keys: std::collections::BTreeSet<_> = k.keys().chain(o.keys()).collect();
        for key in keys {
            let (a, b) = (
                k.get(key).copied().unwrap_or(0),
                o.get(key).copied().unwrap_or(0),
            );
            matched += a.min(b);
            if a != b {
                let side = if a > b { Side::Kal } else { Side::Opgen };
                let listed = case.known.iter().position(|j| {
                    j.0 == *rule
                        && (j.1 == "*" || j.1 == key.0)
                        && (j.2 == "*" || j.2 == key.1)
                        && j.3 == side
                });
                if let Some(i) = listed {
                    used[i] = true;
                    let j = &case.known[i];
                    let tally = by_reason.entry((format!("{side:?}"), j.4)).or_default();
                    tally.0 += a.abs_diff(b);
                    tally.1 += 1;
                } else {
                    unlisted.push(format!(
                        "(\"{rule}\", \"{}\", \"{}\", Side::{side:?}, \"\"), // {a} / {b}",
                        key.0, key.1
                    ));
                }
            }
        }
    }
    eprintln!(
        "{name} {}: {matched} of {total} KAL findings matched",
        case.packages
    );
    for ((side, why), (findings, fields)) in &by_reason {
        eprintln!("  {side} only: {findings} on {fields} fields: {why:.100}");
    }
    assert!(
        unlisted.is_empty(),
        "disagreements on {name} not in its known list:\n{}",
        unlisted.join("\n")
    );
    let stale: Vec<String> = case
        .known
        .iter()
        .zip(&used)
        .filter(|(_, used)| !**used)
        .map(|(j, _)| format!("({:?}, {:?}, {:?}, Side::{:?})", j.0, j.1, j.2, j.3))
        .collect();
    assert!(
        stale.is_empty(),
        "{name}'s known list has disagreements that no longer occur:\n{}",
        stale.join("\n")
    );
    let _ = std::fs::remove_dir_all(&work);
}

/// Disagreements on kueue.
const ROOT_FIELDS: &str = "a kind whose fields sit at its root beside metadata (kueue's WorkloadPriorityClass's value and description, kyverno's PolicyReport and ClusterPolicyReport's scope, scopeSelector, summary and results, keda's duck type WithTriggers's internalKind and spec): import go puts them in a `<Kind>Fields` struct that the kind flattens, so opgen names that struct where KAL names the kind";
const NAMED_MAP: &str = "a field of a named map type (corev1.ResourceList, map[ResourceName]Quantity): KAL checks only a map type written out in the field (`map[K]V`), opgen the type behind the name, as the schema has it";
const FOREIGN_KEY: &str = "a map keyed by corev1.ResourceName: KAL follows a named key type only within the packages it analyses, so that string type of k8s.io/api is no string to it; import go writes the key as String";
const KNOWN_KUEUE: &[(&str, &str, &str, Side, &str)] = &[
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "optionalfields",
        "WorkloadPriorityClass",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "optionalorrequired",
        "WorkloadPriorityClass",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "requiredfields",
        "WorkloadPriorityClass",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "optionalfields",
        "WorkloadPriorityClassFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "optionalorrequired",
        "WorkloadPriorityClassFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "requiredfields",
        "WorkloadPriorityClassFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "nomaps",
        "AdmissionFairSharingStatus",
        "consumedResources",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "LocalQueueAdmissionFairSharingStatus",
        "consumedResources",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "PodSetAssignment",
        "resourceUsage",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "PodSetRequest",
        "resources",
        Side::Opgen,
        NAMED_MAP,
    ),
    ("nomaps", "ResourceList", "", Side::Opgen, NAMED_MAP),
    (
        "nomaps",
        "PodSetAssignment",
        "flavors",
        Side::Kal,
        FOREIGN_KEY,
    ),
    ("requiredfields", "*", "*", Side::Opgen, OMITEMPTY_DROPPED),
    (
        "optionalfields",
        "Admission",
        "clusterQueue",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Admission",
        "podSetAssignments",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterQueuePendingWorkloadsStatus",
        "clusterQueuePendingWorkload",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterQueueStatus",
        "flavorsReservation",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterQueueStatus",
        "flavorsUsage",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterQueueStatus",
        "pendingWorkloadsStatus",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "LocalQueueStatus",
        "flavorUsage",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "LocalQueueStatus",
        "flavorsReservation",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PodSetAssignment",
        "name",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "WorkloadSpec",
        "podSets",
        Side::Kal,
        OMITTED,
    ),
    (
        "defaults",
        "PodSetAssignment",
        "name",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "LocalQueueResourceUsage",
        "total",
        Side::Kal,
        POINTER,
    ),
    (
        "optionalfields",
        "ResourceUsage",
        "borrowed",
        Side::Kal,
        POINTER,
    ),
    (
        "optionalfields",
        "ResourceUsage",
        "total",
        Side::Kal,
        POINTER,
    ),
];

/// Disagreements on flux source-controller.
const STATUS_DEFAULT: &str = "the default on the Go kind's status field (flux's `observedGeneration: -1`, gateway-api XMesh's pending conditions) is the kind's `+opgen:status:default` in Rust, which has no status field to hold it (see KIND_ROOT)";
const FLUX_META: &str = "a type of another flux module (github.com/fluxcd/pkg/apis/meta, acl and kustomize: Artifact, which v1 uses beside v1beta1's and v1beta2's own, LocalObjectReference, AccessFrom, Patch, ...; source-controller's API: image-automation's GitRepositoryRef) that import go writes under src/api/upstream/: opgen lints every type under src/api/, KAL only the packages it is given (as UPSTREAM); where the module has a type of the same name (helm-controller's own ValuesReference), the upstream one adds to its count";
const DURATION: &str = "metav1.Duration is imported as its wire form, a String (controller-gen's schema is a plain string), so the Rust field no longer says it is a duration; a String with Go's duration syntax has no Rust type that serde writes the same way";
const GO_FIELD_NAME: &str = "KAL checks the Go field's name (`Reference`, whose JSON name is `ref`); the Rust field is named after the JSON name, which noreferences accepts";
const QUALIFIED_TYPE: &str = "the field's type is named from another Go package (`meta.LocalObjectReference`, `sourcev1.GitRepositoryRef`, `meta.History`, `cmmeta.SecretKeySelector`, `[]v1.RelabelConfig`, external-secrets' `esmeta.SecretKeySelector`, kyverno's `kyvernov1.ResourceFilters` and `kyvernov1.ImageExtractorConfigs`, cluster-api's `clusterv1beta1.Conditions` and `bootstrapv1beta1.KubeadmConfigSpec`, keda's `v1alpha1.Conditions`), or through a local name for one (kyverno's `type MatchResources = kyvernov2beta1.MatchResources`, `type ObjectFieldBinding k8smanifest.ObjectFieldBinding`): KAL's nonpointerstructs, arrayofstruct, ssatags and nomaps look behind a type only while it is named with a plain identifier (`asNonPointerStruct`, `getStructType`, `IsArrayTypeOrAlias`, the type checker's `checkTypeExpr`), so they skip the field; opgen checks the struct, list or map it is";
const OPTIONAL_STRING: &str = "an optional Go string, list or map without omitempty (`json:\"revision\"`, `json:\"events\"`, `json:\"headers\"`): import go writes every optional string, list and map with `skip_serializing_if` (`String::is_empty`, `Vec::is_empty`, `BTreeMap::is_empty`), as its optionality in controller-gen's schema asks, so the Rust has the omitempty KAL asks the Go for";
const KNOWN_FLUX: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    ("arrayofstruct", "AccessFrom", "*", Side::Opgen, FLUX_META),
    ("commentstart", "AccessFrom", "*", Side::Opgen, FLUX_META),
    ("requiredfields", "AccessFrom", "*", Side::Opgen, FLUX_META),
    ("ssatags", "AccessFrom", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespaceSelector",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Artifact", "*", Side::Opgen, FLUX_META),
    ("requiredfields", "Artifact", "*", Side::Opgen, FLUX_META),
    ("nodurations", "BucketSpec", "interval", Side::Kal, DURATION),
    ("nodurations", "BucketSpec", "timeout", Side::Kal, DURATION),
    (
        "nodurations",
        "GitRepositorySpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "GitRepositorySpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmChartSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmRepositorySpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmRepositorySpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "OCIRepositorySpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "OCIRepositorySpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "noreferences",
        "GitRepositorySpec",
        "ref",
        Side::Kal,
        GO_FIELD_NAME,
    ),
    (
        "noreferences",
        "OCIRepositorySpec",
        "ref",
        Side::Kal,
        GO_FIELD_NAME,
    ),
    (
        "nonpointerstructs",
        "GitRepositoryInclude",
        "repository",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "GitRepositoryVerification",
        "secretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "optionalfields",
        "Artifact",
        "checksum",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Artifact",
        "revision",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "GitRepositoryInclude",
        "fromPath",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "GitRepositoryInclude",
        "toPath",
        Side::Kal,
        OPTIONAL_STRING,
    ),
];

/// Disagreements on gateway-api v1: (rule, type, field JSON name, side, why).
const KNOWN_GATEWAY_API: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, KIND_ROOT),
    (
        "commentstart",
        "supportedFeatureInternal",
        "*",
        Side::Kal,
        UNEXPORTED,
    ),
    (
        "requiredfields",
        "supportedFeatureInternal",
        "*",
        Side::Kal,
        UNEXPORTED,
    ),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "requiredfields",
        "BackendTLSPolicySpec",
        "targetRefs",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "HTTPExternalAuthFilter",
        "protocol",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerEntry",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerEntry",
        "port",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerEntry",
        "protocol",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerEntryStatus",
        "conditions",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerEntryStatus",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ListenerSetSpec",
        "listeners",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PolicyAncestorStatus",
        "conditions",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "RouteParentStatus",
        "conditions",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TCPRouteRule",
        "backendRefs",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TCPRouteSpec",
        "rules",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TLSRouteRule",
        "backendRefs",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TLSRouteSpec",
        "hostnames",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TLSRouteSpec",
        "rules",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UDPRouteRule",
        "backendRefs",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UDPRouteSpec",
        "rules",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "integers",
        "ForwardBodyConfig",
        "maxSize",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "optionalfields",
        "ListenerStatus",
        "supportedKinds",
        Side::Kal,
        OMITZERO,
    ),
];
const UNEXPORTED: &str = "an unexported Go type (gateway-api's supportedFeatureInternal, for its UnmarshalJSON; velero's typeInfo, for its registration; karpenter's taintKeyEffect, for its validation): the Go loader, like controller-gen, reads only exported types, so import go writes no Rust for it";
const CONDITIONS_PATCH: &str = "Go's patchStrategy/patchMergeKey markers and protobuf/patch struct tags on a conditions field, which have no Rust equivalent: see the rule table's conditions entries";
const POINTER_TO_LIST: &str = "a pointer to a list (helm-controller's `Filters *[]Filter`, external-secrets' `Audiences *[]string`, cluster-api v1beta2's `ExtraEnvs *[]EnvVar` and `Taints *[]corev1.Taint`): KAL's ssatags and arrayofstruct check a field whose type is a list or names one (`IsArrayTypeOrAlias`, `getArrayElementType`), not a pointer to one, so they skip the field; import go writes it as an `Option<Vec<_>>`, which opgen checks as the list it is";
const UNTAGGED: &str = "a Go field without a json tag (cert-manager's shared `Duration { Duration metav1.Duration }`, cluster-api-provider-aws's BuildParams for AWS tags): controller-gen leaves it out of the schema (`encountered struct field without JSON tag`), and so does import go, so the Rust struct has no field to lint; KAL keys it by its Go name";
const OMITZERO_STRUCT: &str = "a non-pointer Go struct with omitzero or omitempty and no optional marker (cert-manager's ControllerConfiguration.ACMEDNS01Config, kyverno's ImageVerification.Validation and ResourceFilter's embedded `ResourceDescription `json:\"resources,omitempty\"``, keda's VaultSecret.PkiData, argo-rollouts' ALBStatus.LoadBalancer, cluster-api-provider-aws's AWSClusterSpec.NetworkSpec): optional in controller-gen's schema, so import go writes an `Option`, which nonpointerstructs leaves alone; KAL asks the Go for the marker its optionality lacks";
const PREFIX_MARKER: &str = "a marker name followed by more text (`+optional.`, prometheus-operator's OAuth2.Scopes; `+optional - The recommended version ...`, `+required - ...` and `+optional, default GET`, external-secrets' BeyondtrustServer and WebhookProvider): KAL takes the longest marker name the text starts with (its registry's `Match`), so to it the field is optional (or required); controller-gen looks the whole text up as a marker name, knows none, and ignores it, and import go leaves it out with a warning, so the Rust field has no optional or required marker";
const OMITZERO: &str = "Go's omitzero on a list, which KAL's optionalfields asks to be omitempty: serde has one `skip_serializing_if`, which import go writes for both, so the Rust has nothing to tell apart";

/// Disagreements on flux kustomize-controller.
const KNOWN_FLUX_KUSTOMIZE: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "commentstart",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Image", "*", Side::Opgen, FLUX_META),
    ("commentstart", "JSON6902", "*", Side::Opgen, FLUX_META),
    ("commentstart", "JSON6902Patch", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "KubeConfigReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Patch", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Selector", "*", Side::Opgen, FLUX_META),
    ("commentstart", "Snapshot", "*", Side::Opgen, FLUX_META),
    (
        "nodurations",
        "KustomizationSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "KustomizationSpec",
        "retryInterval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "KustomizationSpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nonpointerstructs",
        "JSON6902Patch",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("optionalfields", "Image", "*", Side::Opgen, FLUX_META),
    ("optionalfields", "JSON6902", "*", Side::Opgen, FLUX_META),
    (
        "optionalfields",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("optionalfields", "Selector", "*", Side::Opgen, FLUX_META),
    (
        "optionalfields",
        "SnapshotEntry",
        "namespace",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalorrequired",
        "Snapshot",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("requiredfields", "Image", "*", Side::Opgen, FLUX_META),
    ("requiredfields", "JSON6902", "*", Side::Opgen, FLUX_META),
    (
        "requiredfields",
        "JSON6902Patch",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "KubeConfig",
        "secretRef",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "NamespacedObjectKindReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("requiredfields", "Patch", "*", Side::Opgen, FLUX_META),
    (
        "requiredfields",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("requiredfields", "Snapshot", "*", Side::Opgen, FLUX_META),
    ("ssatags", "JSON6902Patch", "*", Side::Opgen, FLUX_META),
    (
        "ssatags",
        "KustomizationStatus",
        "history",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
];
/// Disagreements on flux helm-controller.
const KNOWN_FLUX_HELM: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "commentstart",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "ForceRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Image", "*", Side::Opgen, FLUX_META),
    ("commentstart", "JSON6902", "*", Side::Opgen, FLUX_META),
    ("commentstart", "JSON6902Patch", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "KubeConfigReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Patch", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("commentstart", "Selector", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "ValuesReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "nodurations",
        "HelmChartTemplateSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmReleaseSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmReleaseSpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "HelmReleaseStatus",
        "lastAttemptedReleaseActionDuration",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "Install", "timeout", Side::Kal, DURATION),
    (
        "nodurations",
        "InstallStrategy",
        "retryInterval",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "Rollback", "timeout", Side::Kal, DURATION),
    ("nodurations", "Test", "timeout", Side::Kal, DURATION),
    ("nodurations", "Uninstall", "timeout", Side::Kal, DURATION),
    ("nodurations", "Upgrade", "timeout", Side::Kal, DURATION),
    (
        "nodurations",
        "UpgradeStrategy",
        "retryInterval",
        Side::Kal,
        DURATION,
    ),
    (
        "nonpointerstructs",
        "JSON6902Patch",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ForceRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("optionalfields", "Image", "*", Side::Opgen, FLUX_META),
    ("optionalfields", "JSON6902", "*", Side::Opgen, FLUX_META),
    (
        "optionalfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("optionalfields", "Selector", "*", Side::Opgen, FLUX_META),
    ("optionalfields", "Snapshot", "deleted", Side::Kal, OMITTED),
    (
        "optionalfields",
        "TestHookStatus",
        "lastCompleted",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "TestHookStatus",
        "lastStarted",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ValuesReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "CrossNamespaceObjectReference",
        "kind",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "CustomHealthCheck",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "DependencyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "HealthCheckExpressions",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "HelmReleaseSpec",
        "chart",
        Side::Kal,
        REQUIRED_POINTER,
    ),
    ("requiredfields", "Image", "*", Side::Opgen, FLUX_META),
    ("requiredfields", "JSON6902", "*", Side::Opgen, FLUX_META),
    (
        "requiredfields",
        "JSON6902Patch",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("requiredfields", "Patch", "*", Side::Opgen, FLUX_META),
    (
        "requiredfields",
        "SecretKeyReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "ValuesReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "ssatags",
        "HelmReleaseStatus",
        "history",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    ("ssatags", "JSON6902Patch", "*", Side::Opgen, FLUX_META),
    ("ssatags", "Test", "filters", Side::Opgen, POINTER_TO_LIST),
];
/// Disagreements on flux notification-controller.
const KNOWN_FLUX_NOTIFICATION: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "nodurations",
        "ProviderSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ProviderSpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ReceiverSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "optionalfields",
        "ReceiverSpec",
        "events",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "CrossNamespaceObjectReference",
        "kind",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "ReceiverSpec",
        "secretRef",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
];
/// Disagreements on flux image-reflector-controller.
const KNOWN_FLUX_IMAGE_REFLECTOR: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    ("arrayofstruct", "AccessFrom", "*", Side::Opgen, FLUX_META),
    ("commentstart", "AccessFrom", "*", Side::Opgen, FLUX_META),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespaceSelector",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "nodurations",
        "ImagePolicySpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ImageRepositorySpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ImageRepositorySpec",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "optionalfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ScanResult",
        "revision",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ScanResult",
        "scanTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "TagFilter",
        "extract",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "TagFilter",
        "pattern",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    ("requiredfields", "AccessFrom", "*", Side::Opgen, FLUX_META),
    (
        "requiredfields",
        "ImageRepositorySpec",
        "image",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ImageRepositorySpec",
        "interval",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "NamespacedObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    ("ssatags", "AccessFrom", "*", Side::Opgen, FLUX_META),
];
/// Disagreements on flux image-automation-controller.
const KNOWN_FLUX_IMAGE_AUTOMATION: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("defaults", "*", "status", Side::Kal, STATUS_DEFAULT),
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    (
        "commentstart",
        "GitRepositoryRef",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "commentstart",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "nodurations",
        "ImageUpdateAutomationSpec",
        "interval",
        Side::Kal,
        DURATION,
    ),
    (
        "nonpointerstructs",
        "GitCheckoutSpec",
        "ref",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "noreferences",
        "GitCheckoutSpec",
        "ref",
        Side::Kal,
        GO_FIELD_NAME,
    ),
    (
        "optionalfields",
        "GitRepositoryRef",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "optionalfields",
        "ReconcileRequestStatus",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        FLUX_META,
    ),
    (
        "requiredfields",
        "SigningKey",
        "secretRef",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
];

/// Disagreements on cert-manager.
const KNOWN_CERT_MANAGER: &[(&str, &str, &str, Side, &str)] = &[
    (
        "requiredfields",
        "ACMERenewalWindow",
        "end",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "ACMERenewalWindow",
        "start",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "LoggingConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "FormatOptions", "*", Side::Opgen, UPSTREAM),
    (
        "commentstart",
        "LoggingConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "OutputRoutingOptions",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "ParentReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    ("commentstart", "VModuleItem", "*", Side::Opgen, UPSTREAM),
    ("defaults", "ParentReference", "*", Side::Opgen, UPSTREAM),
    ("jsontags", "Duration", "Duration", Side::Kal, UNTAGGED),
    (
        "nodurations",
        "ACMEChallengeSolver",
        "waitInsteadOfSelfCheck",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "CertificateRenewalWindows",
        "windowDuration",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "CertificateRequestSpec",
        "duration",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "CertificateSpec",
        "duration",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "CertificateSpec",
        "renewBefore",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "Duration", "Duration", Side::Kal, UNTAGGED),
    ("nodurations", "OrderSpec", "duration", Side::Kal, DURATION),
    (
        "nomaps",
        "ACMEChallengeSolverHTTP01IngressPodResources",
        "limits",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "ACMEChallengeSolverHTTP01IngressPodResources",
        "requests",
        Side::Opgen,
        NAMED_MAP,
    ),
    ("nomaps", "ResourceList", "", Side::Opgen, NAMED_MAP),
    (
        "nonpointerstructs",
        "ACMEExternalAccountBinding",
        "keySecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuer",
        "privateKeySecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuerDNS01ProviderAcmeDNS",
        "accountSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuerDNS01ProviderAkamai",
        "accessTokenSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuerDNS01ProviderAkamai",
        "clientSecretSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuerDNS01ProviderAkamai",
        "clientTokenSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ACMEIssuerDNS01ProviderDigitalOcean",
        "tokenSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CAInjectorConfiguration",
        "leaderElectionConfig",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CAInjectorConfiguration",
        "logging",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CAInjectorConfiguration",
        "metricsTLSConfig",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CertificateRequestSpec",
        "issuerRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CertificateSpec",
        "issuerRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ChallengeSpec",
        "issuerRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "acmeDNS01Config",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "acmeHTTP01Config",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "gatewayAPI",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "ingressShimConfig",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "logging",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "metricsTLSConfig",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ControllerConfiguration",
        "pemSizeLimitsConfig",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "OrderSpec",
        "issuerRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "Route53Auth",
        "kubernetes",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "Route53KubernetesAuth",
        "serviceAccountRef",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "VaultAppRole",
        "secretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "VenafiCloud",
        "apiTokenSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "VenafiNGTS",
        "credentialsRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "VenafiTPP",
        "credentialsRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "WebhookConfiguration",
        "logging",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "WebhookConfiguration",
        "metricsTLSConfig",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "WebhookConfiguration",
        "tlsConfig",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "optionalfields",
        "ACMEIssuerDNS01ProviderRFC2136",
        "tsigSecretSecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ACMEIssuerDNS01ProviderRoute53",
        "secretAccessKeySecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "JKSKeystore",
        "passwordSecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PKCS12Keystore",
        "passwordSecretRef",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    (
        "optionalfields",
        "VaultKubernetesAuth",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalorrequired",
        "Duration",
        "Duration",
        Side::Kal,
        UNTAGGED,
    ),
    (
        "optionalorrequired",
        "FormatOptions",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "LoggingConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "OutputRoutingOptions",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "VModuleItem",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "CertificateRenewalWindows",
        "cron",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ParentReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "ssatags",
        "LoggingConfiguration",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
];
/// Disagreements on prometheus-operator.
const KNOWN_PROMETHEUS_OPERATOR: &[(&str, &str, &str, Side, &str)] = &[
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "ScrapeConfigSpec",
        "metricRelabelings",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "ScrapeConfigSpec",
        "relabelings",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    ("commentstart", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    (
        "defaults",
        "ObjectReference",
        "group",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "integers",
        "AlertmanagerWebSpec",
        "getConcurrency",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "integers",
        "AlertmanagerWebSpec",
        "timeout",
        Side::Kal,
        UNSIGNED,
    ),
    (
        "nonpointerstructs",
        "IonosSDConfig",
        "authorization",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ProbeSpec",
        "prober",
        Side::Kal,
        POINTER,
    ),
    (
        "optionalfields",
        "AlertmanagerConfigSpec",
        "receivers",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "AlertmanagerConfigSpec",
        "route",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AlertmanagerSpec",
        "alertmanagerConfigMatcherStrategy",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AlertmanagerSpec",
        "resources",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "BasicAuth",
        "password",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "BasicAuth",
        "username",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "CommonPrometheusFields",
        "arbitraryFSAccessThroughSMs",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "CommonPrometheusFields",
        "resources",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ManagedIdentity",
        "clientId",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Matcher",
        "value",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ObjectReference",
        "group",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "PodMonitorSpec",
        "namespaceSelector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PodMonitorSpec",
        "podMetricsEndpoints",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    ("optionalfields", "ProbeSpec", "prober", Side::Kal, OMITTED),
    ("optionalfields", "ProbeSpec", "targets", Side::Kal, OMITTED),
    (
        "optionalfields",
        "ProbeTargetIngress",
        "namespaceSelector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ProbeTargetIngress",
        "selector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PrometheusSpec",
        "rules",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Route",
        "receiver",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    ("optionalfields", "Rules", "alert", Side::Kal, OMITTED),
    ("optionalfields", "SafeTLSConfig", "ca", Side::Kal, OMITTED),
    (
        "optionalfields",
        "SafeTLSConfig",
        "cert",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ServiceMonitorSpec",
        "namespaceSelector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "StorageSpec",
        "volumeClaimTemplate",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ThanosRulerSpec",
        "resources",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ThanosSpec",
        "resources",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "TracingConfig",
        "headers",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    ("optionalfields", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    ("optionalfields", "WebTLSConfig", "cert", Side::Kal, OMITTED),
    (
        "optionalfields",
        "WebTLSConfig",
        "client_ca",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "WebTLSConfig",
        "keySecret",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalorrequired",
        "OAuth2",
        "scopes",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "requiredfields",
        "DiscordConfig",
        "apiURL",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MuteTimeInterval",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ProbeParam",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "RocketChatConfig",
        "token",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "RocketChatConfig",
        "tokenID",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TelegramConfig",
        "chatID",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "TimeInterval",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
];

/// Classes first met on external-secrets (TEST_DOUBLE, MARKER_FIRST, FOREIGN_MARKERS) and kyverno
/// (CONDITIONS_NAME, EMBEDDED_OMITEMPTY).
const TEST_DOUBLE: &str = "a counterfeiter test double (external-secrets' `apis/externalsecrets/v1/fakes` and `v1beta1/fakes`, PushRemoteRef: funcs, mutexes, maps of results and unexported fields without json tags): its package has no `+groupName` and no API type names it, so import go, which writes the API packages and the types they reach, writes no Rust for it; KAL lints every struct of every package it is given";
const MARKER_FIRST: &str = "the field's doc comment starts with a marker line (external-secrets' `// +nullable` above `// refreshTime is ...`) or a directive (karpenter's `//nolint:kubeapilinter` above `// name of the referent.`): KAL's commentstart checks the comment group's first line (`field.Doc.List[0]`), marker or not; controller-gen's description leaves markers and directives out (go/ast's `CommentGroup.Text` drops `//nolint:` as a directive), and so does the doc comment import go writes (the line stays a plain `//` line), which starts with the JSON name";
const FOREIGN_MARKERS: &str = "the field's type is named from another Go package (external-secrets' `esmeta.ServiceAccountSelector`, gateway-api apisx's `v1.ParentReference` and `v1.GatewayController`): KAL reads markers package by package, so it judges such a type's zero value by Go's type system alone (`isSelectorExprZeroValueValid`: a struct is valid unless the field has MinProperties, a string unless the field has MinLength), without the markers of the type or its fields (`MinLength=1` on the selector's `name`, on ObjectName and GatewayController), and asks for a pointer and omitempty; import go writes the type under src/api/upstream/ with its markers, where opgen reads them, finds the zero value invalid and asks for omitzero only (or, for the string, omitempty)";
const CONDITIONS_NAME: &str = "KAL's conditions rule finds the field by its Go name, `Conditions` (`fieldIsCalledConditions`), opgen by its Rust name, which import go takes from the JSON name: kyverno's Deny.RawAnyAllConditions (`json:\"conditions\"`, a Schemaless wrapper of any/all conditions) is a conditions field to opgen only, and ConditionsWrapper.Conditions (`json:\"-\"`, which encoding/json, controller-gen and import go skip) one to KAL only";
const EMBEDDED_OMITEMPTY: &str = "an embedded Go struct whose json tag has no name but is not exactly `,inline` (kyverno's `TargetSelector `json:\",omitempty\"``, `ResourceSpec `json:\",omitempty\"``, `GeneratePattern `json:\",omitempty\"``, `kyvernov1.APICall `json:\",inline,omitempty\"``, `ResourceSpec `json:\",inline,omitempty\"``): encoding/json and controller-gen inline it, and import go writes it `#[serde(flatten)]`, which opgen's rules do not inspect as a field (as KAL skips an inlined one); KAL's json tag reader takes only `,inline` (or an empty tag) for inlining, so to it the field is one to mark optional or required. With no JSON name, the test keys these findings to the Go declaration that follows (CloneList, TargetResourceSpec.context, TargetSelector.selector, ExternalAPICall.refreshInterval, GeneratePattern.data)";

/// external-secrets' external-secrets.io and generators.external-secrets.io (v0.16.2, its version
/// in the controller-gen real-world corpus: the last release with its APIs in the module), as
/// jobset.
#[test]
fn external_secrets_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/external-secrets/external-secrets",
        version: "v0.16.2",
        packages: "./apis/...",
        domain: "external-secrets.io",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_EXTERNAL_SECRETS,
    });
}

/// Disagreements on external-secrets: the classes of the modules above, and three of its own.
const KNOWN_EXTERNAL_SECRETS: &[(&str, &str, &str, Side, &str)] = &[
    (
        "requiredfields",
        "SecretServerProvider",
        "password",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "SecretServerProvider",
        "username",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "commentstart",
        "ControllerClassResource",
        "spec",
        Side::Kal,
        ANONYMOUS,
    ),
    (
        "optionalorrequired",
        "ControllerClassResource",
        "spec",
        Side::Kal,
        ANONYMOUS,
    ),
    (
        "nonpointerstructs",
        "ControllerClassResource",
        "spec",
        Side::Kal,
        ANONYMOUS,
    ),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "PushRemoteRef",
        "*",
        Side::Kal,
        TEST_DOUBLE,
    ),
    ("integers", "PushRemoteRef", "*", Side::Kal, TEST_DOUBLE),
    ("jsontags", "PushRemoteRef", "*", Side::Kal, TEST_DOUBLE),
    ("nomaps", "PushRemoteRef", "*", Side::Kal, TEST_DOUBLE),
    (
        "nonpointerstructs",
        "PushRemoteRef",
        "*",
        Side::Kal,
        TEST_DOUBLE,
    ),
    (
        "optionalorrequired",
        "PushRemoteRef",
        "*",
        Side::Kal,
        TEST_DOUBLE,
    ),
    ("ssatags", "PushRemoteRef", "*", Side::Kal, TEST_DOUBLE),
    (
        "commentstart",
        "ExternalSecretStatus",
        "refreshTime",
        Side::Kal,
        MARKER_FIRST,
    ),
    (
        "commentstart",
        "PushSecretStatus",
        "refreshTime",
        Side::Kal,
        MARKER_FIRST,
    ),
    (
        "nodurations",
        "ClusterExternalSecretSpec",
        "refreshTime",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ClusterPushSecretSpec",
        "refreshTime",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "ExternalSecretSpec",
        "refreshInterval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "PushSecretSpec",
        "refreshInterval",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "WebhookProvider",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "WebhookSpec", "timeout", Side::Kal, DURATION),
    (
        "defaults",
        "ExternalSecretSpec",
        "target",
        Side::Kal,
        OMITTED,
    ),
    (
        "defaults",
        "GithubProvider",
        "url",
        Side::Opgen,
        NO_SPACE_MARKER,
    ),
    (
        "defaults",
        "VaultProvider",
        "version",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "nonpointerstructs",
        "AkeylessProvider",
        "authSecretRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "BeyondtrustProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "BeyondtrustProvider",
        "server",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "ChefProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "ConjurAPIKey",
        "apiKeyRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "ConjurAPIKey",
        "userRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "DelineaProvider",
        "clientId",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "DelineaProvider",
        "clientSecret",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "DopplerProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "OnboardbaseProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "OnePasswordAuth",
        "secretRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "OnePasswordProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "PassboltAuth",
        "passwordSecretRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "PassboltAuth",
        "privateKeySecretRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "PassboltProvider",
        "auth",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "PulumiProvider",
        "accessToken",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "ScalewayProvider",
        "accessKey",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "ScalewayProvider",
        "secretKey",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "SecretStoreSpec",
        "provider",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "VaultDynamicSecretSpec",
        "provider",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "AlibabaAuthSecretRef",
        "accessKeyIDSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "AlibabaAuthSecretRef",
        "accessKeySecretSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "BitwardenSecretsManagerSecretRef",
        "credentials",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CSMAuthSecretRef",
        "accessKeyIDSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CSMAuthSecretRef",
        "accessKeySecretSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "ChefAuthSecretRef",
        "privateKeySecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "DopplerAuthSecretRef",
        "dopplerToken",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "GCPWorkloadIdentity",
        "serviceAccountRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "GithubAppAuth",
        "privateKey",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "GithubSecretRef",
        "secretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "KeeperSecurityProvider",
        "authRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "NTLMProtocol",
        "passwordSecret",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "NTLMProtocol",
        "usernameSecret",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "OnboardbaseAuthSecretRef",
        "apiKeyRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "OnboardbaseAuthSecretRef",
        "passcodeRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "OnePasswordAuthSecretRef",
        "connectTokenSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "OracleSecretRef",
        "fingerprint",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "OracleSecretRef",
        "privatekey",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "PreviderAuthSecretRef",
        "accessToken",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "QuayAccessTokenSpec",
        "serviceAccountRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "SenhaseguraAuth",
        "clientSecretSecretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "UniversalAuthCredentials",
        "clientId",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "UniversalAuthCredentials",
        "clientSecret",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "VaultAppRole",
        "secretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "VaultKubernetesServiceAccountTokenAuth",
        "serviceAccountRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "WebhookSecret",
        "secretRef",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "KubernetesProvider",
        "auth",
        Side::Kal,
        POINTER,
    ),
    ("optionalfields", "AWSProvider", "auth", Side::Kal, OMITTED),
    (
        "optionalfields",
        "AkeylessAuth",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AuthorizationProtocol",
        "ntlm",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterExternalSecretSpec",
        "externalSecretMetadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterPushSecretSpec",
        "pushSecretMetadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Device42SecretRef",
        "credentials",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ECRAuthorizationTokenSpec",
        "auth",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ExternalSecretSpec",
        "secretStoreRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ExternalSecretSpec",
        "target",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ExternalSecretStatusCondition",
        "lastTransitionTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ExternalSecretTemplate",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GCPSMAuthSecretRef",
        "secretAccessKeySecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GCPSMProvider",
        "auth",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GeneratorStateStatusCondition",
        "lastTransitionTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubernetesProvider",
        "auth",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubernetesProvider",
        "server",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PasswordDepotSecretRef",
        "credentials",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PushSecretStatusCondition",
        "lastTransitionTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "STSSessionTokenSpec",
        "auth",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "SecretStoreStatusCondition",
        "lastTransitionTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "StoreSourceRef",
        "storeRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "VaultAwsAuthSecretRef",
        "accessKeyIDSecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "VaultAwsAuthSecretRef",
        "secretAccessKeySecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "VaultCertAuth",
        "clientCert",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "VaultCertAuth",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "VaultLdapAuth",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "VaultProvider", "tls", Side::Kal, OMITTED),
    (
        "optionalfields",
        "VaultUserPassAuth",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "YandexCertificateManagerAuth",
        "authorizedKeySecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "YandexLockboxAuth",
        "authorizedKeySecretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ConjurJWT",
        "hostId",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "VaultProvider",
        "version",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "BeyondtrustServer",
        "apiVersion",
        Side::Kal,
        PREFIX_MARKER,
    ),
    (
        "optionalfields",
        "WebhookProvider",
        "method",
        Side::Kal,
        PREFIX_MARKER,
    ),
    (
        "optionalfields",
        "WebhookSpec",
        "method",
        Side::Kal,
        PREFIX_MARKER,
    ),
    (
        "optionalfields",
        "GithubProvider",
        "environment",
        Side::Opgen,
        NO_SPACE_MARKER,
    ),
    (
        "optionalfields",
        "GithubProvider",
        "repository",
        Side::Opgen,
        NO_SPACE_MARKER,
    ),
    (
        "optionalfields",
        "GithubProvider",
        "uploadURL",
        Side::Opgen,
        NO_SPACE_MARKER,
    ),
    (
        "optionalfields",
        "VaultAppRole",
        "roleId",
        Side::Opgen,
        NO_SPACE_MARKER,
    ),
    (
        "optionalorrequired",
        "BeyondtrustServer",
        "apiUrl",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "optionalorrequired",
        "BeyondtrustServer",
        "apiVersion",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "optionalorrequired",
        "BeyondtrustServer",
        "verifyCA",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "optionalorrequired",
        "WebhookProvider",
        "method",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "optionalorrequired",
        "WebhookSpec",
        "method",
        Side::Opgen,
        PREFIX_MARKER,
    ),
    (
        "optionalorrequired",
        "GithubProvider",
        "environment",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "optionalorrequired",
        "GithubProvider",
        "repository",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "optionalorrequired",
        "GithubProvider",
        "uploadURL",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "optionalorrequired",
        "VaultAppRole",
        "roleId",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "optionalorrequired",
        "VaultAppRole",
        "roleRef",
        Side::Kal,
        NO_SPACE_MARKER,
    ),
    (
        "requiredfields",
        "BeyondtrustServer",
        "apiUrl",
        Side::Kal,
        PREFIX_MARKER,
    ),
    (
        "requiredfields",
        "BeyondtrustServer",
        "verifyCA",
        Side::Kal,
        PREFIX_MARKER,
    ),
    (
        "requiredfields",
        "GCPWorkloadIdentity",
        "serviceAccountRef",
        Side::Kal,
        FOREIGN_MARKERS,
    ),
    (
        "ssatags",
        "VaultKubernetesServiceAccountTokenAuth",
        "audiences",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
];

/// Kyverno's kyverno.io, reports.kyverno.io and wgpolicyk8s.io (its version and packages in the
/// controller-gen real-world corpus), as jobset.
#[test]
fn kyverno_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/kyverno/kyverno",
        version: "v1.19.1",
        packages: "./api/...",
        domain: "kyverno.io",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_KYVERNO,
    });
}

/// Disagreements on kyverno: the classes of the modules above, and two of its own.
const KNOWN_KYVERNO: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "ClusterPolicyReport",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    ("arrayofstruct", "PolicyReport", "*", Side::Kal, ROOT_FIELDS),
    (
        "arrayofstruct",
        "ClusterPolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "arrayofstruct",
        "PolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "commentstart",
        "ClusterPolicyReport",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    ("commentstart", "PolicyReport", "*", Side::Kal, ROOT_FIELDS),
    (
        "commentstart",
        "ClusterPolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "commentstart",
        "PolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "ssatags",
        "ClusterPolicyReport",
        "*",
        Side::Kal,
        ROOT_FIELDS,
    ),
    ("ssatags", "PolicyReport", "*", Side::Kal, ROOT_FIELDS),
    (
        "ssatags",
        "ClusterPolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "ssatags",
        "PolicyReportFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "commentstart",
        "GroupVersionKind",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "GroupVersionResource",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "ObjectFieldBinding",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "ObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "ReportResult", "*", Side::Opgen, UPSTREAM),
    ("commentstart", "ReportSummary", "*", Side::Opgen, UPSTREAM),
    ("commentstart", "Timestamp", "*", Side::Opgen, UPSTREAM),
    (
        "optionalorrequired",
        "GroupVersionKind",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "GroupVersionResource",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "ObjectFieldBinding",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "ObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "ReportResult",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalorrequired",
        "Timestamp",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "AdmissionRequest",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("optionalfields", "ReportResult", "*", Side::Opgen, UPSTREAM),
    (
        "optionalfields",
        "ReportSummary",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("integers", "ReportSummary", "*", Side::Opgen, UPSTREAM),
    ("notimestamp", "ReportResult", "*", Side::Opgen, UPSTREAM),
    ("ssatags", "ObjectFieldBinding", "*", Side::Opgen, UPSTREAM),
    ("ssatags", "ReportResult", "*", Side::Opgen, UPSTREAM),
    (
        "arrayofstruct",
        "ObjectFieldBinding",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "arrayofstruct",
        "CleanupPolicySpec",
        "context",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "EphemeralReportSpec",
        "results",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "ImageVerification",
        "attestations",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "ImageVerification",
        "attestors",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "Manifests",
        "ignoreFields",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "MatchResources",
        "all",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "MatchResources",
        "any",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "PolicyExceptionSpec",
        "podSecurity",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "Rule",
        "context",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "Spec",
        "validationFailureActionOverrides",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "UpdateRequestStatus",
        "generatedResources",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "Validation",
        "failureActionOverrides",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "arrayofstruct",
        "Validation",
        "foreach",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "MatchResources",
        "all",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "MatchResources",
        "any",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nomaps",
        "Rule",
        "imageExtractors",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "CleanupPolicySpec",
        "match",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "PolicyExceptionSpec",
        "match",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "RuleContext",
        "trigger",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "UpdateRequestSpec",
        "resource",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "conditions",
        "ConditionsWrapper",
        "-",
        Side::Kal,
        CONDITIONS_NAME,
    ),
    (
        "conditions",
        "Deny",
        "conditions",
        Side::Opgen,
        CONDITIONS_NAME,
    ),
    (
        "conditions",
        "GlobalContextEntryStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "PolicyStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "nodurations",
        "ExternalAPICall",
        "refreshInterval",
        Side::Kal,
        DURATION,
    ),
    (
        "nonpointerstructs",
        "CloneList",
        "",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "nonpointerstructs",
        "TargetResourceSpec",
        "context",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "nonpointerstructs",
        "TargetSelector",
        "selector",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "optionalorrequired",
        "CloneList",
        "",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "optionalorrequired",
        "TargetResourceSpec",
        "context",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "optionalorrequired",
        "TargetSelector",
        "selector",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "optionalorrequired",
        "ExternalAPICall",
        "refreshInterval",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "optionalorrequired",
        "GeneratePattern",
        "data",
        Side::Kal,
        EMBEDDED_OMITEMPTY,
    ),
    (
        "nonpointerstructs",
        "ImageVerification",
        "validate",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ResourceFilter",
        "resources",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "optionalfields",
        "ClusterPolicyReport",
        "summary",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "EphemeralReportSpec",
        "summary",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GeneratePattern",
        "clone",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GeneratePattern",
        "cloneList",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GlobalContextEntryStatus",
        "lastRefreshTime",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Manifests", "dryRun", Side::Kal, OMITTED),
    (
        "optionalfields",
        "PolicyReport",
        "summary",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PolicyStatus",
        "autogen",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PolicyStatus",
        "rulecount",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PolicyStatus",
        "validatingadmissionpolicy",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RequestInfo",
        "userInfo",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "UpdateRequestSpecContext",
        "admissionRequestInfo",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "UpdateRequestSpecContext",
        "userInfo",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "APICall",
        "urlPath",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Attestation",
        "attestors",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Attestation",
        "predicateType",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Attestation",
        "type",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "PolicyReportResult",
        "source",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    ("optionalfields", "Rekor", "url", Side::Kal, OPTIONAL_STRING),
    (
        "optionalfields",
        "ServiceCall",
        "caBundle",
        Side::Kal,
        OPTIONAL_STRING,
    ),
];

/// gateway-api's experimental group, `apisx` (the module and version of
/// `gateway_api_agrees_with_kube_api_linter`), as jobset.
#[test]
fn gateway_api_x_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/gateway-api",
        version: "v1.6.3",
        packages: "./apisx/...",
        domain: "x-k8s.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_GATEWAY_API_X,
    });
}

/// Disagreements on gateway-api's apisx: the classes of the modules above.
const KNOWN_GATEWAY_API_X: &[(&str, &str, &str, Side, &str)] = &[
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
    ("defaults", "XMesh", "status", Side::Kal, STATUS_DEFAULT),
    (
        "conditions",
        "BackendAncestorStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MeshStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "optionalfields",
        "BackendTLS",
        "validation",
        Side::Kal,
        OMITTED,
    ),
    (
        "requiredfields",
        "BackendAncestorStatus",
        "controllerName",
        Side::Kal,
        FOREIGN_MARKERS,
    ),
    (
        "requiredfields",
        "BackendAncestorStatus",
        "parentRef",
        Side::Kal,
        FOREIGN_MARKERS,
    ),
    (
        "requiredfields",
        "BackendPort",
        "port",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "commentstart",
        "BackendTLSPolicyValidation",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "CookieConfig", "*", Side::Opgen, UPSTREAM),
    (
        "commentstart",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "LocalPolicyTargetReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "ParametersReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "ParentReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "PolicyAncestorStatus",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "PolicyStatus", "*", Side::Opgen, UPSTREAM),
    (
        "commentstart",
        "SecretObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "commentstart",
        "SessionPersistence",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "SubjectAltName", "*", Side::Opgen, UPSTREAM),
    (
        "commentstart",
        "SupportedFeature",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "conditions",
        "PolicyAncestorStatus",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("defaults", "CookieConfig", "*", Side::Opgen, UPSTREAM),
    ("defaults", "ParentReference", "*", Side::Opgen, UPSTREAM),
    (
        "defaults",
        "SecretObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("defaults", "SessionPersistence", "*", Side::Opgen, UPSTREAM),
    (
        "optionalfields",
        "SubjectAltName",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "BackendTLSPolicyValidation",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "LocalObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "LocalPolicyTargetReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "ParametersReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "ParentReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "PolicyAncestorStatus",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    ("requiredfields", "PolicyStatus", "*", Side::Opgen, UPSTREAM),
    (
        "requiredfields",
        "SecretObjectReference",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "SubjectAltName",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "SupportedFeature",
        "*",
        Side::Opgen,
        UPSTREAM,
    ),
];

/// cluster-api's api module (v1.14.2, its version and packages in the controller-gen real-world
/// corpus: core, addons, bootstrap/kubeadm, controlplane/kubeadm, ipam and runtime, in a
/// multigroup project), as jobset.
#[test]
fn cluster_api_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/cluster-api/api",
        version: "v1.14.2",
        packages: "./...",
        domain: "x-k8s.io",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_CLUSTER_API,
    });
}

const NO_GROUP: &str = "a package that is no API group (cluster-api's `runtime/hooks/v1alpha1`, the Runtime SDK's hook requests and responses, whose doc says it holds no CRD types; `runtime/catalog`, their registry; `deprecated/errors`' ClusterError, MachineError and KubeadmControlPlaneError, errors for providers; argo-rollouts' `pkg/apis/rollouts/validation`, the objects a Rollout references while it is validated): it has no `+groupName` and no API type names these types, so controller-gen makes no schema of them, and import go, which writes the API packages and the types they reach, writes no Rust for them; KAL lints every struct of every package it is given";
const HOOKS_NAMESAKE: &str = "a type name declared both in `runtime/hooks/v1alpha1` (ExtensionHandler and GroupVersionHook of the discovery response, no API group: see NO_GROUP; 2 KAL findings on each of these fields, which have no omitempty) and in `runtime/v1beta2` (ExtensionConfig's status, whose required fields with omitempty import go writes plain: see OMITEMPTY_DROPPED and OMITZERO_DROPPED; 1 opgen finding): the comparison keys a finding by type name, so the two net out to 1 KAL only";
const OMITZERO_DROPPED: &str = "a required Go struct with `omitempty,omitzero` (cluster-api v1beta2's convention) whose zero value is invalid: import go writes a required field plain, without `skip_serializing_if` (as OMITEMPTY_DROPPED), so opgen asks for the omitzero the Go has (`does not allow the zero value`), where KAL, reading the Go tag, has nothing to say";
const OWN_JSON: &str = "a Go struct with its own MarshalJSON and a Type marker (cluster-api's BootstrapTokenString, `+kubebuilder:validation:Type=string`): controller-gen describes it by its markers alone, a string, and import go writes it as the JSON it is (`pub struct BootstrapTokenString(pub serde_json::Value)`, serde by hand), which opgen's rules do not take for a struct; KAL sees the Go struct and asks for a pointer";
/// Disagreements on cluster-api: the classes of the modules above, and the five above of its own.
const KNOWN_CLUSTER_API: &[(&str, &str, &str, Side, &str)] = &[
    (
        "requiredfields",
        "LocalObjectTemplate",
        "ref",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "APIServer",
        "extraEnvs",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
    (
        "arrayofstruct",
        "ControllerManager",
        "extraEnvs",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
    (
        "arrayofstruct",
        "LocalEtcd",
        "extraEnvs",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
    (
        "arrayofstruct",
        "Scheduler",
        "extraEnvs",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
    ("commentstart", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    (
        "conditions",
        "ClusterClassStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ClusterClassV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ClusterResourceSetStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ClusterResourceSetV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ClusterStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ClusterV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ExtensionConfigStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "ExtensionConfigV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "IPAddressClaimStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "IPAddressClaimV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "KubeadmConfigStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "KubeadmConfigV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "KubeadmControlPlaneStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "KubeadmControlPlaneV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineDeploymentStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineDeploymentV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineHealthCheckStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineHealthCheckV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachinePoolStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachinePoolV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineSetStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineSetV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    (
        "conditions",
        "MachineV1Beta2Status",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    ("jsontags", "Builder", "*", Side::Kal, NO_GROUP),
    ("jsontags", "Catalog", "*", Side::Kal, NO_GROUP),
    ("jsontags", "ClusterError", "*", Side::Kal, NO_GROUP),
    ("jsontags", "GroupHook", "*", Side::Kal, NO_GROUP),
    ("jsontags", "GroupVersionHook", "*", Side::Kal, NO_GROUP),
    ("jsontags", "HookDescriptor", "*", Side::Kal, NO_GROUP),
    ("jsontags", "HookMeta", "*", Side::Kal, NO_GROUP),
    (
        "jsontags",
        "KubeadmControlPlaneError",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("jsontags", "MachineError", "*", Side::Kal, NO_GROUP),
    (
        "nodurations",
        "APIServer",
        "timeoutForControlPlane",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "BootstrapToken", "ttl", Side::Kal, DURATION),
    ("nodurations", "ControlPlaneClass", "*", Side::Kal, DURATION),
    (
        "nodurations",
        "ControlPlaneTopology",
        "*",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "Discovery", "timeout", Side::Kal, DURATION),
    (
        "nodurations",
        "KubeadmControlPlaneMachineTemplate",
        "*",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "KubeadmControlPlaneTemplateMachineTemplate",
        "*",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "MachineDeploymentClass",
        "*",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "MachineDeploymentTopology",
        "*",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "MachineHealthCheckClass",
        "nodeStartupTimeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "MachineHealthCheckSpec",
        "nodeStartupTimeout",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "MachinePoolClass", "*", Side::Kal, DURATION),
    (
        "nodurations",
        "MachinePoolTopology",
        "*",
        Side::Kal,
        DURATION,
    ),
    ("nodurations", "MachineSpec", "*", Side::Kal, DURATION),
    (
        "nodurations",
        "RemediationStrategy",
        "*",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "UnhealthyCondition",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "UnhealthyMachineCondition",
        "timeout",
        Side::Kal,
        DURATION,
    ),
    ("nomaps", "Catalog", "*", Side::Kal, NO_GROUP),
    (
        "nonpointerstructs",
        "Bootstrap",
        "configRef",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "BootstrapToken",
        "token",
        Side::Kal,
        OWN_JSON,
    ),
    (
        "nonpointerstructs",
        "CanUpdateMachineResponse",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "nonpointerstructs",
        "CanUpdateMachineSetResponse",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "nonpointerstructs",
        "ClientConfig",
        "service",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterClassSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterClassStatusVariableDefinition",
        "deprecatedV1Beta1Metadata",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterClassUpgrade",
        "external",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterClassVariable",
        "deprecatedV1Beta1Metadata",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterConfiguration",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterNetwork",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ClusterResourceSet",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    ("nonpointerstructs", "ClusterSpec", "*", Side::Kal, POINTER),
    (
        "nonpointerstructs",
        "ClusterStatus",
        "initialization",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneClass",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneClassHealthCheck",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneClassHealthCheckRemediation",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneTopology",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneTopologyHealthCheck",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ControlPlaneTopologyHealthCheckRemediation",
        "*",
        Side::Kal,
        POINTER,
    ),
    ("nonpointerstructs", "Discovery", "*", Side::Kal, POINTER),
    ("nonpointerstructs", "Etcd", "*", Side::Kal, POINTER),
    (
        "nonpointerstructs",
        "ExtensionConfig",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "File",
        "contentFrom",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "FileDiscovery",
        "kubeConfig",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "FileDiscoveryKubeConfig",
        "cluster",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "IPAddress",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "IPAddressClaim",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "IPAddressClaimStatus",
        "addressRef",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "IgnitionSpec",
        "containerLinuxConfig",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "InfrastructureClass",
        "naming",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "InitConfiguration",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "JSONSchemaProps",
        "x-metadata",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "JoinConfiguration",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "JoinControlPlane",
        "localAPIEndpoint",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeConfigUser",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmConfig",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "KubeadmConfigSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmConfigStatus",
        "initialization",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmConfigTemplate",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "KubeadmConfigTemplateResource",
        "spec",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlane",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneMachineTemplateSpec",
        "deletion",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneRolloutSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneSpec",
        "kubeadmConfigSpec",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneStatus",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplate",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplateMachineTemplate",
        "spec",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplateMachineTemplateSpec",
        "deletion",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplateResource",
        "spec",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplateResourceSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "KubeadmControlPlaneTemplateResourceSpec",
        "kubeadmConfigSpec",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    ("nonpointerstructs", "Machine", "spec", Side::Kal, KIND_ROOT),
    (
        "nonpointerstructs",
        "MachineDeployment",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentClass",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentClassHealthCheck",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentClassHealthCheckRemediation",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentClassRolloutSpec",
        "strategy",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentClassRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentRolloutSpec",
        "strategy",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentTopology",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentTopologyHealthCheck",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentTopologyHealthCheckRemediation",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentTopologyRolloutSpec",
        "strategy",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineDeploymentTopologyRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineHealthCheck",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "MachineHealthCheckRemediation",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineHealthCheckSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachinePool",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "MachinePoolClass",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachinePoolStatus",
        "initialization",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachinePoolTopology",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineSet",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "MachineSetSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineSpec",
        "deletion",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineStatus",
        "*",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "MachineTemplateSpec",
        "*",
        Side::Kal,
        POINTER,
    ),
    ("nonpointerstructs", "Topology", "*", Side::Kal, POINTER),
    (
        "nonpointerstructs",
        "User",
        "passwdFrom",
        Side::Kal,
        POINTER,
    ),
    (
        "noreferences",
        "GeneratePatchesRequestItem",
        "holderReference",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "noreferences",
        "ValidateTopologyRequestItem",
        "holderReference",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "APIEndpoint",
        "host",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Bootstrap",
        "configRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "BootstrapToken",
        "expires",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "CanUpdateMachineRequestObjects",
        "bootstrapConfig",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "CanUpdateMachineResponse",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "CanUpdateMachineSetRequestObjects",
        "bootstrapConfigTemplate",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "CanUpdateMachineSetResponse",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ClientConfig",
        "service",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Cluster", "spec", Side::Kal, KIND_ROOT),
    (
        "optionalfields",
        "ClusterBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ClusterClass",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "ClusterClassSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterClassStatusVariableDefinition",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterClassUpgrade",
        "external",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterClassVariable",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterConfiguration",
        "*",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "ClusterNetwork", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "ClusterResourceSet",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "ClusterResourceSetBinding",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    ("optionalfields", "ClusterSpec", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "ClusterStatus",
        "apiEndpoints",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "ClusterStatus",
        "initialization",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ClusterTopologyBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "CommonResponse",
        "message",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ControlPlaneBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ControlPlaneClass",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneClassHealthCheck",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneClassHealthCheckRemediation",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneMachineTemplateBuiltins",
        "infrastructureRef",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ControlPlaneMachineTemplateInfrastructureRefBuiltins",
        "name",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "ControlPlaneTopology",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneTopologyHealthCheck",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneTopologyHealthCheckRemediation",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ControlPlaneTopologyRolloutSpec",
        "after",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Discovery", "*", Side::Kal, OMITTED),
    ("optionalfields", "Etcd", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "ExtensionConfig",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    ("optionalfields", "File", "contentFrom", Side::Kal, OMITTED),
    (
        "optionalfields",
        "FileDiscovery",
        "kubeConfig",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "FileDiscoveryKubeConfig",
        "cluster",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "GenerateUpgradePlanRequest",
        "fromWorkersKubernetesVersion",
        Side::Kal,
        NO_GROUP,
    ),
    ("optionalfields", "IPAddress", "spec", Side::Kal, KIND_ROOT),
    (
        "optionalfields",
        "IPAddressClaim",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "IPAddressClaimStatus",
        "addressRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "IgnitionSpec",
        "containerLinuxConfig",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "InfrastructureClass",
        "naming",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "InitConfiguration",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "JSONSchemaProps",
        "x-metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "JoinConfiguration",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "JoinControlPlane",
        "localAPIEndpoint",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "KubeConfigUser", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "KubeadmConfig",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "KubeadmConfigSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmConfigStatus",
        "initialization",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmConfigTemplate",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "KubeadmConfigTemplateResource",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlane",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneMachineTemplate",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneMachineTemplateSpec",
        "deletion",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneRolloutSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneStatus",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneTemplate",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneTemplateMachineTemplate",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneTemplateMachineTemplateSpec",
        "deletion",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneTemplateResource",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "KubeadmControlPlaneTemplateResourceSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Machine", "spec", Side::Kal, KIND_ROOT),
    (
        "optionalfields",
        "MachineBootstrapConfigRefBuiltins",
        "name",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "MachineDeletionStatus",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeployment",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "MachineDeploymentBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "MachineDeploymentClass",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentClassHealthCheck",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentClassHealthCheckRemediation",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentClassRolloutSpec",
        "strategy",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentClassRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentClassTemplate",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentRolloutSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentTopology",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentTopologyHealthCheck",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentTopologyHealthCheckRemediation",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentTopologyRolloutSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineDeploymentTopologyRolloutStrategy",
        "rollingUpdate",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineHealthCheck",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "MachineHealthCheckRemediation",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineHealthCheckSpec",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachineInfrastructureRefBuiltins",
        "name",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "MachinePool",
        "spec",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "optionalfields",
        "MachinePoolBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalfields",
        "MachinePoolClass",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachinePoolClassTemplate",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachinePoolStatus",
        "initialization",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "MachinePoolTopology",
        "*",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "MachineSet", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "MachineSetSpec", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "MachineSpec",
        "deletion",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "MachineStatus", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "MachineTemplateSpec",
        "spec",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ResourceBinding",
        "lastAppliedTime",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Topology", "*", Side::Kal, OMITTED),
    ("optionalfields", "TypeMeta", "*", Side::Opgen, UPSTREAM),
    (
        "optionalfields",
        "UpdateMachineRequestObjects",
        "bootstrapConfig",
        Side::Kal,
        NO_GROUP,
    ),
    ("optionalfields", "User", "passwdFrom", Side::Kal, OMITTED),
    ("optionalorrequired", "Builder", "*", Side::Kal, NO_GROUP),
    ("optionalorrequired", "Catalog", "*", Side::Kal, NO_GROUP),
    (
        "optionalorrequired",
        "ClusterError",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("optionalorrequired", "GroupHook", "*", Side::Kal, NO_GROUP),
    (
        "optionalorrequired",
        "GroupVersionHook",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalorrequired",
        "HookDescriptor",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("optionalorrequired", "HookMeta", "*", Side::Kal, NO_GROUP),
    (
        "optionalorrequired",
        "KubeadmControlPlaneError",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalorrequired",
        "MachineError",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "AfterClusterUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "AfterControlPlaneInitializedRequest",
        "cluster",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "AfterControlPlaneUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "AfterWorkersUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "Arg",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "BeforeClusterCreateRequest",
        "cluster",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "BeforeClusterDeleteRequest",
        "cluster",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "BeforeClusterUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "BeforeControlPlaneUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "BeforeWorkersUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "CanUpdateMachineRequestObjects",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "CanUpdateMachineSetRequestObjects",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ClusterAvailabilityGate",
        "conditionType",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassPatch",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassRef",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassSpec",
        "*",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassStatusVariable",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassStatusVariableDefinition",
        "from",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassStatusVariableDefinition",
        "schema",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassTemplateReference",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassVariable",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterClassVariable",
        "schema",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterResourceSetBindingSpec",
        "clusterName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterResourceSetSpec",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ClusterTopologyBuiltins",
        "classRef",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ClusterTopologyClusterClassRefBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ClusterVariable",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "CommonResponse",
        "status",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "CommonRetryResponse",
        "retryAfterSeconds",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ContractVersionedObjectReference",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ControlPlaneClass",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ControlPlaneClassMachineInfrastructureTemplate",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ExtensionConfigSpec",
        "clientConfig",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ExtensionHandler",
        "*",
        Side::Kal,
        HOOKS_NAMESAKE,
    ),
    (
        "requiredfields",
        "ExternalEtcd",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "FailureDomain",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "File",
        "path",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "FileDiscovery",
        "kubeConfigPath",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "FileDiscoveryKubeConfig",
        "user",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "FileSource",
        "secret",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "Filesystem",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "GeneratePatchesRequest",
        "items",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "GeneratePatchesRequestItem",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "GeneratePatchesResponseItem",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "GenerateUpgradePlanRequest",
        "cluster",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "GroupVersionHook",
        "*",
        Side::Kal,
        HOOKS_NAMESAKE,
    ),
    (
        "requiredfields",
        "HolderReference",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "HostPathMount",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressClaimReference",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressClaimSpec",
        "poolRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressReference",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressSpec",
        "address",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressSpec",
        "claimRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "IPAddressSpec",
        "poolRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "IPPoolReference",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "InfrastructureClass",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "JSONPatch",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeConfigAuthExec",
        "command",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeConfigAuthExecEnv",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeConfigAuthProvider",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmConfigTemplateSpec",
        "template",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmControlPlaneMachineTemplate",
        "spec",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmControlPlaneRolloutStrategy",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmControlPlaneSpec",
        "machineTemplate",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmControlPlaneSpec",
        "version",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "KubeadmControlPlaneTemplateSpec",
        "template",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "LastRemediationStatus",
        "machine",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "LastRemediationStatus",
        "time",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineAddress",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClass",
        "bootstrap",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClass",
        "class",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClass",
        "infrastructure",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClassBootstrapTemplate",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClassInfrastructureTemplate",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentClassRolloutStrategy",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentRolloutStrategy",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentSpec",
        "clusterName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentSpec",
        "selector",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentSpec",
        "template",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentTopology",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDeploymentTopologyRolloutStrategy",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDrainRuleDrainConfig",
        "behavior",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineDrainRuleSpec",
        "drain",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineHealthCheckRemediationTemplateReference",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineHealthCheckSpec",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineNodeReference",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolClass",
        "bootstrap",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolClass",
        "class",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolClass",
        "infrastructure",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolClassBootstrapTemplate",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolClassInfrastructureTemplate",
        "templateRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolSpec",
        "clusterName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolSpec",
        "template",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachinePoolTopology",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineReadinessGate",
        "conditionType",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSetSpec",
        "clusterName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSetSpec",
        "selector",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSetSpec",
        "template",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSpec",
        "bootstrap",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSpec",
        "clusterName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineSpec",
        "infrastructureRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "MachineTaint",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "MachineTemplateSpec",
        "spec",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "NetworkRanges",
        "cidrBlocks",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "Partition",
        "device",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PartitionSpec",
        "percentage",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PasswdSource",
        "secret",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "PatchDefinition",
        "jsonPatches",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PatchDefinition",
        "selector",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "PatchSelector",
        "apiVersion",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PatchSelector",
        "kind",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "PatchSelector",
        "matchResources",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "ResourceRef",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ResourceSetBinding",
        "clusterResourceSetName",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "SecretFileSource",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "SecretPasswdSource",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ServiceReference",
        "*",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "StatusUpgradePlanVersion",
        "version",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "StatusVersion",
        "version",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "Topology",
        "classRef",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "requiredfields",
        "Topology",
        "version",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UnhealthyMachineCondition",
        "status",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UnhealthyMachineCondition",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UnhealthyNodeCondition",
        "status",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UnhealthyNodeCondition",
        "type",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "UpdateMachineRequestObjects",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "User",
        "name",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "ValidateTopologyRequest",
        "items",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ValidateTopologyRequestItem",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "requiredfields",
        "ValidationRule",
        "rule",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    ("requiredfields", "Variable", "*", Side::Kal, NO_GROUP),
    (
        "requiredfields",
        "VariableSchema",
        "openAPIV3Schema",
        Side::Opgen,
        OMITZERO_DROPPED,
    ),
    (
        "ssatags",
        "AfterControlPlaneUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "AfterWorkersUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "BeforeClusterUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "BeforeControlPlaneUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "BeforeWorkersUpgradeRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("ssatags", "Builder", "catalogBuilder", Side::Kal, NO_GROUP),
    (
        "ssatags",
        "ClusterNetworkBuiltins",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "ClusterResourceSetStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "ClusterResourceSetV1Beta1DeprecatedStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "DiscoverVariablesResponse",
        "variables",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "ExtensionConfigStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "ExtensionConfigV1Beta1DeprecatedStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "GeneratePatchesRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "GeneratePatchesRequestItem",
        "variables",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "GeneratePatchesResponse",
        "items",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "GenerateUpgradePlanResponse",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("ssatags", "HookMeta", "Tags", Side::Kal, NO_GROUP),
    (
        "ssatags",
        "IPAddressClaimStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "IPAddressClaimV1Beta1DeprecatedStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "KubeadmConfigStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "KubeadmConfigV1Beta1DeprecatedStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "KubeadmControlPlaneStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "KubeadmControlPlaneV1Beta1DeprecatedStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "NodeRegistrationOptions",
        "taints",
        Side::Opgen,
        POINTER_TO_LIST,
    ),
    (
        "ssatags",
        "ValidateTopologyRequest",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "ValidateTopologyRequestItem",
        "variables",
        Side::Kal,
        NO_GROUP,
    ),
];

/// KEDA's keda.sh and eventing.keda.sh (v2.21.0, its version and packages in the controller-gen
/// real-world corpus, in a multigroup project with embedded ObjectMeta, as its Makefile runs
/// controller-gen), as jobset.
#[test]
fn keda_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/kedacore/keda/v2",
        version: "v2.21.0",
        packages: "./apis/...",
        domain: "keda.sh",
        embedded_object_meta: true,
        multigroup: true,
        known: KNOWN_KEDA,
    });
}

const TYPE_OPTIONAL: &str = "`+optional` on a type declaration (keda's ScaledJobStatus, ScaledObjectStatus, ScalingStrategy, Rollout and CloudEventSourceStatus): controller-gen's `optional` marker describes fields only, so on a type it means nothing, and import go writes no marker on the Rust struct; KAL's optionalorrequired tells the type not to be marked optional, and its duplicatemarkers, which adds the markers of a field's type to the field's own (`TypeAwareMarkerCollectionForField`), finds `optional` twice on an optional field of such a type (ScaledJobSpec's rollout and scalingStrategy, ScaledObject's status)";
/// Disagreements on keda: the classes of the modules above, and one of its own.
const KNOWN_KEDA: &[(&str, &str, &str, Side, &str)] = &[
    // WithTriggers (a duck type) has internalKind and spec at its root beside metadata.
    (
        "commentstart",
        "WithTriggers",
        "internalKind",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "commentstart",
        "WithTriggers",
        "spec",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "commentstart",
        "WithTriggersFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "nonpointerstructs",
        "WithTriggers",
        "spec",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "nonpointerstructs",
        "WithTriggersFields",
        "spec",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "optionalorrequired",
        "WithTriggers",
        "internalKind",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "optionalorrequired",
        "WithTriggers",
        "spec",
        Side::Kal,
        ROOT_FIELDS,
    ),
    (
        "optionalorrequired",
        "WithTriggersFields",
        "*",
        Side::Opgen,
        ROOT_FIELDS,
    ),
    (
        "duplicatemarkers",
        "ScaledJobSpec",
        "rollout",
        Side::Kal,
        TYPE_OPTIONAL,
    ),
    (
        "duplicatemarkers",
        "ScaledJobSpec",
        "scalingStrategy",
        Side::Kal,
        TYPE_OPTIONAL,
    ),
    (
        "duplicatemarkers",
        "ScaledObject",
        "status",
        Side::Kal,
        TYPE_OPTIONAL,
    ),
    ("optionalorrequired", "*", "", Side::Kal, TYPE_OPTIONAL),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    (
        "optionalfields",
        "ScaledObject",
        "status",
        Side::Kal,
        KIND_ROOT,
    ),
    (
        "nonpointerstructs",
        "AwsSecretManagerCredentials",
        "*",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "AzureKeyVaultCredentials",
        "clientSecret",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "ScaledObjectSpec",
        "scaleTargetRef",
        Side::Opgen,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "VaultSecret",
        "pkiData",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "optionalfields",
        "AdvancedConfig",
        "scalingModifiers",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AwsSecretManager",
        "*",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "AzureKeyVault", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "CloudEventSourceSpec",
        "eventSubscription",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "Destination", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "GCPSecretManager",
        "*",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "OAuth2",
        "clientSecret",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "ScaledJobSpec", "*", Side::Kal, OMITTED),
    (
        "optionalfields",
        "AzureKeyVaultCloudInfo",
        "*",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "ssatags",
        "CloudEventSourceStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
];

/// karpenter's karpenter.sh and autoscaling.x-k8s.io (v1.14.1, its version and packages in the
/// controller-gen real-world corpus, in a multigroup project), as jobset.
#[test]
fn karpenter_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/karpenter",
        version: "v1.14.1",
        packages: "./pkg/apis/...",
        domain: "karpenter.sh",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_KARPENTER,
    });
}

const NILLABLE_DURATION: &str = "karpenter's NillableDuration, a struct with its own MarshalJSON (a duration string or `Never`) whose every use is Schemaless: its two fields have no json tag, so the test keys KAL's findings on both to `Raw`, the declaration at or after them. controller-gen leaves a field without a json tag out, embedded or not (`encountered struct field without JSON tag`). Import go writes the type as the JSON its MarshalJSON writes (`pub struct NillableDuration(pub serde_json::Value)`, serde by hand), so opgen has neither field; KAL asks both for a json tag (jsontags) and a marker (optionalorrequired), and nodurations finds the Duration";
/// Disagreements on karpenter: the classes of the modules above, and one of its own.
const KNOWN_KARPENTER: &[(&str, &str, &str, Side, &str)] = &[
    (
        "requiredfields",
        "NodeClaimSpec",
        "nodeClassRef",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    (
        "requiredfields",
        "NodeClaimTemplateSpec",
        "nodeClassRef",
        Side::Kal,
        REQUIRED_OMITTED,
    ),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
    (
        "commentstart",
        "LocalObjectRef",
        "name",
        Side::Kal,
        MARKER_FIRST,
    ),
    ("commentstart", "ScalableRef", "*", Side::Kal, MARKER_FIRST),
    (
        "conditions",
        "CapacityBufferStatus",
        "conditions",
        Side::Kal,
        CONDITIONS_PATCH,
    ),
    ("defaults", "NodePoolSpec", "disruption", Side::Kal, OMITTED),
    ("defaults", "NodePoolStatus", "nodes", Side::Kal, OMITTED),
    (
        "optionalfields",
        "NodeClaimSpec",
        "resources",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "NodeClaimStatus",
        "lastPodEventTime",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "NodePoolSpec",
        "disruption",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "NodePoolStatus",
        "nodes",
        Side::Kal,
        OMITTED,
    ),
    (
        "nonpointerstructs",
        "NodePoolSpec",
        "disruption",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "NodeClaimTemplate",
        "metadata",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    ("jsontags", "taintKeyEffect", "", Side::Kal, UNEXPORTED),
    (
        "optionalorrequired",
        "taintKeyEffect",
        "",
        Side::Kal,
        UNEXPORTED,
    ),
    ("nodurations", "Budget", "duration", Side::Kal, DURATION),
    (
        "nodurations",
        "NodeClaimSpec",
        "terminationGracePeriod",
        Side::Kal,
        DURATION,
    ),
    (
        "nodurations",
        "NodeClaimTemplateSpec",
        "terminationGracePeriod",
        Side::Kal,
        DURATION,
    ),
    (
        "jsontags",
        "NillableDuration",
        "Raw",
        Side::Kal,
        NILLABLE_DURATION,
    ),
    (
        "nodurations",
        "NillableDuration",
        "Raw",
        Side::Kal,
        NILLABLE_DURATION,
    ),
    (
        "optionalorrequired",
        "NillableDuration",
        "Raw",
        Side::Kal,
        NILLABLE_DURATION,
    ),
    ("nomaps", "ResourceList", "", Side::Opgen, UPSTREAM),
    (
        "nomaps",
        "CapacityBufferSpec",
        "limits",
        Side::Opgen,
        NAMED_MAP,
    ),
    ("nomaps", "Limits", "", Side::Opgen, NAMED_MAP),
    ("nomaps", "NodeClaimStatus", "*", Side::Opgen, NAMED_MAP),
    (
        "nomaps",
        "NodeOverlaySpec",
        "capacity",
        Side::Opgen,
        NAMED_MAP,
    ),
    ("nomaps", "NodePoolSpec", "limits", Side::Opgen, NAMED_MAP),
    (
        "nomaps",
        "NodePoolStatus",
        "resources",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "ResourceRequirements",
        "requests",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "requiredfields",
        "NodeOverlaySpec",
        "requirements",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "NodeSelectorRequirement",
        "operator",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
    (
        "requiredfields",
        "NodeSelectorRequirementWithMinValues",
        "operator",
        Side::Opgen,
        OMITEMPTY_DROPPED,
    ),
];

fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let dest = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_tree(&path, &dest);
        } else {
            std::fs::write(&dest, std::fs::read(&path).unwrap()).unwrap();
        }
    }
}

/// argo-rollouts (v1.10.1, its version and packages in the controller-gen real-world corpus, in
/// a multigroup project), as jobset.
#[test]
fn argo_rollouts_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "github.com/argoproj/argo-rollouts",
        version: "v1.10.1",
        packages: "./pkg/apis/...",
        domain: "argoproj.io",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_ARGO_ROLLOUTS,
    });
}

/// Disagreements on argo-rollouts: all of classes met before.
const KNOWN_ARGO_ROLLOUTS: &[(&str, &str, &str, Side, &str)] = &[
    (
        "optionalfields",
        "RolloutExperimentTemplate",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    (
        "arrayofstruct",
        "ReferencedResources",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "integers",
        "AnalysisTemplatesWithType",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "jsontags",
        "AnalysisTemplatesWithType",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("jsontags", "ReferencedResources", "*", Side::Kal, NO_GROUP),
    ("jsontags", "ServiceWithType", "*", Side::Kal, NO_GROUP),
    (
        "optionalorrequired",
        "AnalysisTemplatesWithType",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalorrequired",
        "ReferencedResources",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "optionalorrequired",
        "ServiceWithType",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    (
        "ssatags",
        "AnalysisTemplatesWithType",
        "*",
        Side::Kal,
        NO_GROUP,
    ),
    ("ssatags", "ReferencedResources", "*", Side::Kal, NO_GROUP),
    (
        "nonpointerstructs",
        "ALBStatus",
        "canaryTargetGroup",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ALBStatus",
        "loadBalancer",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ALBStatus",
        "stableTargetGroup",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "AnalysisRunStatus",
        "runSummary",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "CloudWatchMetricStat",
        "metric",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "AppMeshVirtualNodeGroup",
        "canaryVirtualNodeRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "AppMeshVirtualNodeGroup",
        "stableVirtualNodeRef",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "nonpointerstructs",
        "HeaderRoutingMatch",
        "headerValue",
        Side::Opgen,
        REQUIRED_POINTER,
    ),
    (
        "optionalfields",
        "AnalysisTemplateRef",
        "templateName",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "AwsResourceRef",
        "fullName",
        Side::Kal,
        OPTIONAL_STRING,
    ),
    (
        "optionalfields",
        "Authentication",
        "oauth2",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Authentication",
        "sigv4",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "DatadogMetric",
        "secretRef",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "ExperimentSpec",
        "analysisRunMetadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "PrometheusMetric",
        "authentication",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutExperimentStep",
        "analysisRunMetadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutSpec",
        "selector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutSpec",
        "strategy",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutSpec",
        "template",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutStatus",
        "blueGreen",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "RolloutStatus",
        "canary",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "WebMetric",
        "authentication",
        Side::Kal,
        OMITTED,
    ),
];

/// cluster-api-provider-aws (v2.13.0, its version and packages in the controller-gen real-world
/// corpus), as jobset.
#[test]
fn cluster_api_provider_aws_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "sigs.k8s.io/cluster-api-provider-aws/v2",
        version: "v2.13.0",
        packages: "./api/...",
        domain: "cluster.x-k8s.io",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_CLUSTER_API_PROVIDER_AWS,
    });
}

const GO_DURATION: &str = "Go's time.Duration (cluster-api-provider-aws's `IdleTimeout time.Duration`): encoding/json writes it as nanoseconds, controller-gen's schema is an int64 integer, and import go writes an i64, so the Rust field no longer says it is a duration";
/// Disagreements on cluster-api-provider-aws.
const KNOWN_CLUSTER_API_PROVIDER_AWS: &[(&str, &str, &str, Side, &str)] = &[
    (
        "optionalfields",
        "AWSClusterTemplateResource",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSMachineTemplateResource",
        "metadata",
        Side::Kal,
        OMITTED,
    ),
    (
        "requiredfields",
        "Condition",
        "status",
        Side::Opgen,
        UPSTREAM,
    ),
    ("commentstart", "*", "metadata", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "spec", Side::Kal, KIND_ROOT),
    ("commentstart", "*", "status", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("nonpointerstructs", "*", "status", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "metadata", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalorrequired", "*", "status", Side::Kal, KIND_ROOT),
    ("jsontags", "BuildParams", "*", Side::Kal, UNTAGGED),
    ("optionalfields", "BuildParams", "*", Side::Kal, UNTAGGED),
    (
        "optionalorrequired",
        "BuildParams",
        "*",
        Side::Kal,
        UNTAGGED,
    ),
    (
        "nodurations",
        "ClassicELBAttributes",
        "idleTimeout",
        Side::Kal,
        GO_DURATION,
    ),
    (
        "nodurations",
        "ClassicELBHealthCheck",
        "interval",
        Side::Kal,
        GO_DURATION,
    ),
    (
        "nodurations",
        "ClassicELBHealthCheck",
        "timeout",
        Side::Kal,
        GO_DURATION,
    ),
    (
        "nodurations",
        "S3Bucket",
        "presignedURLDuration",
        Side::Kal,
        DURATION,
    ),
    (
        "nomaps",
        "AWSClusterStatus",
        "failureDomains",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "AWSMachineTemplateStatus",
        "capacity",
        Side::Opgen,
        NAMED_MAP,
    ),
    (
        "nomaps",
        "AWSManagedClusterStatus",
        "failureDomains",
        Side::Opgen,
        NAMED_MAP,
    ),
    ("nomaps", "FailureDomains", "", Side::Opgen, UPSTREAM),
    ("nomaps", "ResourceList", "", Side::Opgen, UPSTREAM),
    (
        "nonpointerstructs",
        "AWSClusterSpec",
        "network",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "AWSClusterStatus",
        "networkStatus",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "AWSMachineSpec",
        "ami",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "ClassicELB",
        "attributes",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "LoadBalancer",
        "attributes",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "NetworkStatus",
        "apiServerElb",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "NetworkStatus",
        "secondaryAPIServerELB",
        Side::Kal,
        OMITZERO_STRUCT,
    ),
    (
        "nonpointerstructs",
        "AWSMachineSpec",
        "cpuOptions",
        Side::Kal,
        POINTER,
    ),
    (
        "nonpointerstructs",
        "Instance",
        "cpuOptions",
        Side::Kal,
        POINTER,
    ),
    (
        "optionalfields",
        "APIEndpoint",
        "host",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "APIEndpoint",
        "port",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "Condition",
        "message",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "Condition",
        "reason",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "Condition",
        "severity",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "optionalfields",
        "FailureDomainSpec",
        "controlPlane",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "Condition",
        "lastTransitionTime",
        Side::Opgen,
        UPSTREAM,
    ),
    ("requiredfields", "Condition", "type", Side::Opgen, UPSTREAM),
    (
        "requiredfields",
        "MachineAddress",
        "address",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "requiredfields",
        "MachineAddress",
        "type",
        Side::Opgen,
        UPSTREAM,
    ),
    (
        "ssatags",
        "AWSClusterStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "AWSMachineStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "AWSMachineTemplateStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "ssatags",
        "AWSManagedClusterStatus",
        "conditions",
        Side::Opgen,
        QUALIFIED_TYPE,
    ),
    (
        "optionalfields",
        "AWSClusterIdentitySpec",
        "allowedNamespaces",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSClusterSpec",
        "bastion",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSClusterSpec",
        "controlPlaneEndpoint",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSMachineSpec",
        "cloudInit",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSMachineSpec",
        "cpuOptions",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AWSManagedClusterSpec",
        "controlPlaneEndpoint",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "AllowedNamespaces",
        "selector",
        Side::Kal,
        OMITTED,
    ),
    (
        "optionalfields",
        "Instance",
        "cpuOptions",
        Side::Kal,
        OMITTED,
    ),
    ("optionalfields", "NetworkSpec", "vpc", Side::Kal, OMITTED),
    (
        "optionalfields",
        "AllowedNamespaces",
        "list",
        Side::Kal,
        OPTIONAL_STRING,
    ),
];

/// kubebuilder's sample projects (tests/fixtures/import-go/kubebuilder: nested Go modules the
/// proxy does not serve, kept as data), their API packages as the import tests take them.
#[test]
fn kubebuilder_project_v4_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "import-go/kubebuilder/project-v4",
        version: "",
        packages: "./api/...",
        domain: "testproject.org",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_KUBEBUILDER,
    });
}

#[test]
fn kubebuilder_project_v4_multigroup_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "import-go/kubebuilder/project-v4-multigroup",
        version: "",
        packages: "./api/...",
        domain: "testproject.org",
        embedded_object_meta: false,
        multigroup: true,
        known: KNOWN_KUBEBUILDER,
    });
}

#[test]
fn kubebuilder_project_v4_with_plugins_agrees_with_kube_api_linter() {
    real_world_agrees(&RealWorld {
        module: "import-go/kubebuilder/project-v4-with-plugins",
        version: "",
        packages: "./api/...",
        domain: "testproject.org",
        embedded_object_meta: false,
        multigroup: false,
        known: KNOWN_KUBEBUILDER,
    });
}

/// Disagreements on kubebuilder's samples: the kinds' root fields and the scaffold's
/// conditions field, without the patch markers and tags KAL asks for.
const KNOWN_KUBEBUILDER: &[(&str, &str, &str, Side, &str)] = &[
    ("conditions", "*", "conditions", Side::Kal, CONDITIONS_PATCH),
    ("nonpointerstructs", "*", "spec", Side::Kal, KIND_ROOT),
    ("optionalfields", "*", "status", Side::Kal, KIND_ROOT),
    ("requiredfields", "*", "spec", Side::Kal, KIND_ROOT),
];
