// Diagnostic codes: every error and warning opgen reports carries one
// (`error[E0304]: ...`), and `opgen explain E0304` prints its entry: the rule,
// why it exists, an example that breaks it and the example fixed.
//
// The table in diagnostic_codes.cpp is the single source of truth: the CLI's
// `explain`, the generated docs/diagnostics.md and the tests all read it. Its
// entries are written one group per file, support/codes/<group>.inc.
//
// Codes are grouped by what they are about (the hundreds digit pair):
//   E01xx  YAML and the shape of a spec file   E06xx  checks and require
//   E02xx  schema syntax                       E07xx  autograd
//   E03xx  op names, arguments, types, ABI     E08xx  tags, dispatch, symm_mem, autocast
//   E04xx  mutation and aliasing               E09xx  files and output
//   E05xx  the rule language, let and fake     E10xx  samples
//                                              E11xx  host objects and the types file
// Warnings take a W with the same grouping (W1001).
//
// A code, once assigned, is never renumbered nor reused: a new rule takes the
// next free number of its group (the enumerators below may be reordered
// freely; the ids in the table are what users see). A retired code stays
// listed here as retired so its number is never handed out again:
//   (none retired yet)
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

namespace opgen {

enum class Code : uint16_t {
  // E01xx: YAML and the shape of a spec file
  InvalidYaml,
  SeveralYamlDocuments,
  SpecNotMapping,
  MissingSchemaKey,
  UnknownKey,
  DuplicateKey,
  NonStringKey,
  WrongValueType,
  UnknownAbi,
  TextNotCarriable,
  // E02xx: schema syntax
  SchemaSyntax,
  SchemaUnknownType,
  SchemaBadDefault,
  // E03xx: op names, arguments, types and the ABI
  SchemaWithoutName,
  ReservedOpName,
  NamespaceMismatch,
  FileNameMismatch,
  VariadicSchema,
  DuplicateArgument,
  ReservedArgumentName,
  UnsupportedType,
  UnsupportedReturnType,
  TypeNotInStableAbi,
  StableAbiTooOld,
  OpDefinedTwice,
  UnknownArgument,
  ArgumentNotATensor,
  GeneratedNameCollision,
  ArgumentListedTwice,
  TooManyArguments,
  // E04xx: mutation and aliasing
  MutationNotListed,
  ReturnsAlias,
  BadInplaceOp,
  // E05xx: the rule language, let, fake and flops rules
  RuleSyntax,
  UnknownName,
  UnknownFunction,
  BadCallArguments,
  DynamicBounds,
  RuleKindMismatch,
  OptionalMayBeNone,
  UnusableArgumentType,
  ShadowedBuiltin,
  DivisionByZero,
  FakeRuleNotOutput,
  FakeRuleCount,
  FakeRulesWithoutOutputs,
  FakeRuleForNonTensor,
  BadFakePythonTarget,
  LetNotInt,
  BadLetName,
  LetNameTaken,
  ConstantOverflow,
  FlopsNotInt,
  FlopsNotCountable,
  FlopsOnOverloadedOp,
  FlopsMayRaise,
  FlopsMayBeNegative,
  CompileConditionMayRaise,
  FakeRuleAlwaysRaises,
  // E06xx: checks and require
  UnknownDtype,
  NegativeDim,
  RequireNotBool,
  NotInCppCheck,
  // E07xx: autograd
  AutogradWithoutBackward,
  AutogradOnMutatingOp,
  GradsRepeated,
  UnknownBackwardOp,
  GradsCountMismatch,
  UnbindableBackwardArgument,
  BadAutogradBinding,
  // E08xx: tags, dispatch, symmetric memory and autocast
  UnknownTag,
  TagsNeedNewerStableAbi,
  UnknownDispatchKey,
  DuplicateDispatchKey,
  SymmMemWithoutGroupName,
  AutocastUnknownDevice,
  AutocastDeviceNotDispatched,
  AutocastBadDtype,
  AutocastDtypeNotAllowed,
  AutocastOnMutatingOp,
  AutocastKeywordOnly,
  DuplicateTag,
  NoTensorToDispatchOn,
  ExistingKernelNotDispatched,
  BadExistingKernel,
  ExistingKernelWithoutInclude,
  BadCudagraph,
  CudagraphContradictsTags,
  SeveralLayoutTags,
  CompileConditionIncomplete,
  CompileWhenNotBool,
  BadCompileFallback,
  UnreachedDispatchKey,
  DispatchKeyNotOnStableAbi,
  AutogradKernelAndRule,
  AutocastKernelAndRule,
  FakeForDecomposingOp,
  FakeBesideMetaKernel,
  BadDefine,
  CustomOpCannotDefine,
  // E09xx: files and output
  CannotReadSpec,
  CannotWriteOutput,
  OutputFileExists,
  NoSpecFiles,
  InvalidLibraryName,
  OutputTooLarge,
  OutputLocked,
  OutputNotOpgens,
  // E10xx: samples
  SampleValueMismatch,
  SampleMissingArgument,
  SampleShapeMismatch,
  // E11xx: host objects, tensor subclasses and the types file
  BadHostClass,
  BadHostFieldType,
  BadHostArgument,
  UnknownHostField,
  BadSubclassResult,
  BadCarry,
  NoSamples,  // a warning: W1001
  DuplicateArgumentNotCompilable,  // a warning: W0307
  DictNotCompilable,  // a warning: W0312
  AliasingResultNotCompilable,  // a warning: W0401
  NonTensorMarkedMutated,  // a warning: W0402
  ViewResultNotCompilable,  // a warning: W0403
  OwnAliasResultNotCompilable,  // a warning: W0404
  UnsharedAliasNotCompilable,  // a warning: W0405
  GeneratorWithoutSeededTag,  // a warning: W0801
  UnneededDynamicShapeTag,  // a warning: W0802
  DecomposingOpEagerOnly,  // a warning: W0803

  Count,  // not a code: the number of codes (a unit test holds the table to it)
};

struct CodeInfo {
  Code code;
  std::string_view id;     // "E0304": stable; 'E' for errors, 'W' for warnings
  std::string_view title;  // a short phrase, lower case, no final period
  std::string_view rule;   // Markdown: what the rule is and why it exists
  // One example that breaks the rule and the same example fixed. YAML
  // examples are spec files, each introduced by a `# <name>.yaml` line; the
  // docs show what opgen reports for the broken one, and a unit test holds
  // both to the checker. Other languages ("console") are shown as written.
  std::string_view bad;
  std::string_view fixed;
  std::string_view language = "yaml";
};

// Every code, ordered by id.
const std::vector<CodeInfo>& all_codes();
const CodeInfo& code_info(Code code);
inline std::string_view code_id(Code code) { return code_info(code).id; }
// The code with this id ("E0304"), or nullptr.
const CodeInfo* find_code(std::string_view id);
// The heading of a code's group ("Schema syntax" for E02xx).
std::string_view code_group(std::string_view id);

}  // namespace opgen
