// RUN: %check %s --work-dir %t

// The string ops run in the runtime (plan steps of kind "host"): stop words
// compared with and without case, Unicode case mapping, a data-dependent
// result length, broadcasting equality and concatenation, and a string
// input returned unchanged (a copy step).
// INPUT 0: np.array(["Monday", "tuesday", "MONDAY", "Straße", "été", "x"])
// INPUT 1: np.array([["monday", "Tuesday", "wednesday"]])
// INPUT 2: np.array(["monday"])
// REFERENCE: string_normalizer(a0, "UPPER", False, ["monday", "X"])
// REFERENCE: string_normalizer(a1, "LOWER", True, ["monday"])
// REFERENCE: string_normalizer(a0, "NONE", False, ["monday", "tuesday", "straße", "été", "x"])
// REFERENCE: string_normalizer(a0, "LOWER") == a2
// REFERENCE: np.char.add(a0, a2)
// REFERENCE: a1
func.func @main(%a0: tensor<6x!msgraph.string>, %a1: tensor<1x3x!msgraph.string>, %a2: tensor<1x!msgraph.string>)
    -> (tensor<?x!msgraph.string>, tensor<1x?x!msgraph.string>, tensor<?x!msgraph.string>, tensor<6xi1>, tensor<6x!msgraph.string>, tensor<1x3x!msgraph.string>) {
  %upper = msgraph.string_normalizer %a0 {case_change_action = "UPPER", stopwords = ["monday", "X"]} : (tensor<6x!msgraph.string>) -> tensor<?x!msgraph.string>
  %lower = msgraph.string_normalizer %a1 {case_change_action = "LOWER", is_case_sensitive = true, stopwords = ["monday"]} : (tensor<1x3x!msgraph.string>) -> tensor<1x?x!msgraph.string>
  %none = msgraph.string_normalizer %a0 {stopwords = ["monday", "tuesday", "straße", "été", "x"]} : (tensor<6x!msgraph.string>) -> tensor<?x!msgraph.string>
  %lowered = msgraph.string_normalizer %a0 {case_change_action = "LOWER"} : (tensor<6x!msgraph.string>) -> tensor<6x!msgraph.string>
  %eq = msgraph.string_equal %lowered, %a2 : (tensor<6x!msgraph.string>, tensor<1x!msgraph.string>) -> tensor<6xi1>
  %cat = msgraph.string_concat %a0, %a2 : (tensor<6x!msgraph.string>, tensor<1x!msgraph.string>) -> tensor<6x!msgraph.string>
  return %upper, %lower, %none, %eq, %cat, %a1 : tensor<?x!msgraph.string>, tensor<1x?x!msgraph.string>, tensor<?x!msgraph.string>, tensor<6xi1>, tensor<6x!msgraph.string>, tensor<1x3x!msgraph.string>
}
