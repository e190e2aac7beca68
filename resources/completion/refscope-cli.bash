# bash completion for refscope-cli (installed as
# /usr/share/bash-completion/completions/refscope-cli by the Debian package,
# docs/packaging.md). The verbs and each verb's options are those of
# `refscope-cli --help` and `refscope-cli VERB --help`;
# tests/packaging/test_completion.py checks that they still agree.

_refscope_cli_options() {
    case "$1" in
        summary) echo "--by --top --filter" ;;
        roots | referrers | retained | dominators | cycles | query) echo "--top" ;;
        path) echo "--to --type" ;;
        diff) echo "--third --top --filter --force" ;;
        suspects) echo "--baseline --third --top" ;;
        export-path) echo "--to --type -o --format --paths --hops --max-nodes --cluster" ;;
        export-heapsnapshot) echo "-o --python-types" ;;
        listen) echo "--dir --socket-dir --tcp --no-unix --token --every --collect --on-connect" \
                     "--count --timeout --exit-when-idle --verify --max-connections" \
                     "--handshake-timeout --stall-timeout" ;;
    esac
}

_refscope_cli() {
    local cur prev verbs verb word i
    cur="${COMP_WORDS[COMP_CWORD]}"
    prev="${COMP_WORDS[COMP_CWORD - 1]}"
    verbs="info summary roots path referrers retained dominators cycles diff query suspects
           export-path export-heapsnapshot listen processes help"
    # The verb is the first word after the program that is not an option.
    verb=""
    for ((i = 1; i < COMP_CWORD; i++)); do
        word="${COMP_WORDS[i]}"
        if [[ "$word" != -* ]]; then
            verb="$word"
            break
        fi
    done

    # Values of the options that take one.
    case "$prev" in
        --by) COMPREPLY=($(compgen -W "type module cycle dominator" -- "$cur")); return ;;
        --format) COMPREPLY=($(compgen -W "png svg pdf dot" -- "$cur")); return ;;
        --cluster) COMPREPLY=($(compgen -W "module type cycle none" -- "$cur")); return ;;
        --dir | --socket-dir) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        -o | --baseline | --third) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        --top | --to | --type | --filter | --tcp | --token | --every | --count | --timeout | \
            --paths | --hops | --max-nodes | --max-connections | --handshake-timeout | --stall-timeout)
            return ;;
    esac

    if [[ -z "$verb" ]]; then
        if [[ "$cur" == -* ]]; then
            COMPREPLY=($(compgen -W "--json --help --version" -- "$cur"))
        else
            COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
        fi
        return
    fi
    if [[ "$verb" == help ]]; then
        COMPREPLY=($(compgen -W "$verbs" -- "$cur"))
        return
    fi
    if [[ "$cur" == -* ]]; then
        COMPREPLY=($(compgen -W "$(_refscope_cli_options "$verb") --json --help" -- "$cur"))
        return
    fi
    # Snapshot files; any file, as a snapshot need not end in .rscope.
    COMPREPLY=($(compgen -f -- "$cur"))
}

complete -o filenames -F _refscope_cli refscope-cli
