#ifndef EVROUTE_CYAML_SHIM_H
#define EVROUTE_CYAML_SHIM_H
/*
 * libyaml (yaml-0.1), for EvrouteConfig's YAML reader. Only the event parser is used
 * (yaml_parser_parse); Swift builds the node tree itself (YAMLDocument.swift).
 */
#include <yaml.h>

#endif
